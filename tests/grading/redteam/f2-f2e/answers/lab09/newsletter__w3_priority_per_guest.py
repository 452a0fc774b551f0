def enqueue_newsletter(conn, guest_ids):
    ids = []
    with conn.transaction():
        for i, g in enumerate(guest_ids):
            # later guests a little lower, so the newsletter goes out in order
            ids.append(queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY - i))
    return ids
