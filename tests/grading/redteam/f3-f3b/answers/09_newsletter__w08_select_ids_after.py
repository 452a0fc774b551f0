# RULE: return-ids: reads the ids back with a SELECT of every newsletter job (also other newsletters' jobs)
def enqueue_newsletter(conn, guest_ids):
    """Enqueue one send_newsletter job per guest, below the default priority, in one transaction."""
    queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                       priority=NEWSLETTER_PRIORITY)
    rows = conn.execute("SELECT id FROM jobs WHERE type = 'send_newsletter' ORDER BY id").fetchall()
    return [r[0] for r in rows]
