# wrong (one-job-per-guest: the type): "newsletter" instead of "send_newsletter"
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "newsletter", [{"guest_id": g} for g in guest_ids], priority=NEWSLETTER_PRIORITY)
