def enqueue_newsletter(conn, guest_ids):
    ids = []
    guest_ids = list(guest_ids)
    for at in range(0, len(guest_ids), 500):   # batches of 500, each its own statement
        ids += queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids[at:at + 500]],
                                  priority=NEWSLETTER_PRIORITY)
    return ids
