# RULE: correct
def enqueue_newsletter(conn, guest_ids):
    """Enqueue one send_newsletter job per guest, below the default priority, in one transaction."""
    with conn.transaction():
        return [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY)
                for g in guest_ids]
