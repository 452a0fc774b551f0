def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              queue="bulk", priority=NEWSLETTER_PRIORITY)
