def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g, "campaign": "friday"} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY)
