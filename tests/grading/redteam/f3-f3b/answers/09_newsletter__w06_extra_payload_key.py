# RULE: one-job-per-guest (payload ... and nothing else): adds the campaign name
def enqueue_newsletter(conn, guest_ids):
    """Enqueue one send_newsletter job per guest, below the default priority, in one transaction."""
    return queue.enqueue_many(conn, "send_newsletter",
                              [{"guest_id": g, "campaign": "friday-newsletter"} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY)
