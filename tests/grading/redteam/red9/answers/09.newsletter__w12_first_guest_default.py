# wrong (below-default / own-order): the first guest at the default priority "so the campaign starts at once"
def enqueue_newsletter(conn, guest_ids):
    guest_ids = list(guest_ids)
    with conn.transaction():
        ids = []
        for n, g in enumerate(guest_ids):
            ids.append(queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=0 if n == 0 else NEWSLETTER_PRIORITY))
        return ids
