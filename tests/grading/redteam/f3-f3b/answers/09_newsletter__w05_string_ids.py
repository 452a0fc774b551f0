# RULE: one-job-per-guest (payload {"guest_id": <id>}): the id stored as a string
def enqueue_newsletter(conn, guest_ids):
    """Enqueue one send_newsletter job per guest, below the default priority, in one transaction."""
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": str(g)} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY)
