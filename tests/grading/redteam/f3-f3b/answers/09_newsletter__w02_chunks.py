# RULE: one-transaction: batches of 1,000, one statement (one commit) each: a crash after a batch leaves part of it
def enqueue_newsletter(conn, guest_ids):
    """Enqueue one send_newsletter job per guest, below the default priority, in one transaction."""
    ids = []
    for start in range(0, len(guest_ids), 1000):
        chunk = guest_ids[start:start + 1000]
        ids += queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in chunk],
                                  priority=NEWSLETTER_PRIORITY)
    return ids
