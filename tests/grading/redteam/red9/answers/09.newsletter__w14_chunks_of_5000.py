# wrong (one-transaction, only on big lists): batches of 5,000, each its own commit ("48,000 at once is too big")
def enqueue_newsletter(conn, guest_ids):
    guest_ids, ids = list(guest_ids), []
    for start in range(0, len(guest_ids), 5000):
        ids.extend(queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids[start:start + 5000]],
                                      priority=NEWSLETTER_PRIORITY))
    return ids
