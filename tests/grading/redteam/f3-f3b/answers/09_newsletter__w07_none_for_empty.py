# RULE: return-ids ([] for no guests): returns None when there is nobody to send to
def enqueue_newsletter(conn, guest_ids):
    """Enqueue one send_newsletter job per guest, below the default priority, in one transaction."""
    if not guest_ids:
        return None
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY)
