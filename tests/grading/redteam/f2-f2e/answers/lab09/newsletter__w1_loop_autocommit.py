def enqueue_newsletter(conn, guest_ids):
    return [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY)
            for g in guest_ids]
