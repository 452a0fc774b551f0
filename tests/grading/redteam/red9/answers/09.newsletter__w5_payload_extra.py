# wrong (one-job-per-guest: payload and nothing else): adds a campaign name
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g, "campaign": "friday"} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY)
