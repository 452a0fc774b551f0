def enqueue_newsletter(conn, guest_ids):
    ids = []
    with conn.transaction():
        for guest in guest_ids:
            ids.append(queue.enqueue(conn, "send_newsletter", {"guest_id": guest}, queue="default", priority=-1))
    return ids
