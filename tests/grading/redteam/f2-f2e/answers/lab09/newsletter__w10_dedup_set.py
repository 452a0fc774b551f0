def enqueue_newsletter(conn, guest_ids):
    unique = list(dict.fromkeys(guest_ids))  # a guest gets one newsletter
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in unique],
                              priority=NEWSLETTER_PRIORITY)
