# wrong (own-order): each next guest one priority lower, "to keep them in order"
def enqueue_newsletter(conn, guest_ids):
    with conn.transaction():
        return [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY - n)
                for n, g in enumerate(guest_ids)]
