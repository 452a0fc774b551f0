# correct: one enqueue per guest, inside one transaction; priority -1; a tuple back
def enqueue_newsletter(conn, guest_ids):
    ids = []
    with conn.transaction():
        for guest_id in guest_ids:
            ids.append(queue.enqueue(conn, "send_newsletter", {"guest_id": guest_id}, queue="default", priority=-1))
    return tuple(ids)
