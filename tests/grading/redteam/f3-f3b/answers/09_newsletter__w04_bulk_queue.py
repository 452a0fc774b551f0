# RULE: one-queue: puts the newsletter on queue BULK (the other fix)
def enqueue_newsletter(conn, guest_ids):
    """Enqueue one send_newsletter job per guest, below the default priority, in one transaction."""
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              queue=BULK, priority=NEWSLETTER_PRIORITY)
