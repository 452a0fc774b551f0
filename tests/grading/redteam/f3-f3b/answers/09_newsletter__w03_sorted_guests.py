# RULE: return-ids (in the guests' order): sorts the guests first
def enqueue_newsletter(conn, guest_ids):
    """Enqueue one send_newsletter job per guest, below the default priority, in one transaction."""
    payloads = [{"guest_id": g} for g in sorted(guest_ids)]
    return queue.enqueue_many(conn, "send_newsletter", payloads, priority=NEWSLETTER_PRIORITY)
