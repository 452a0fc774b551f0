# wrong (one-transaction, only on big lists): chunks of 1,000, each its own statement and commit
def enqueue_newsletter(conn, guest_ids):
    ids = []
    guest_ids = list(guest_ids)
    for start in range(0, len(guest_ids), 1000):
        chunk = guest_ids[start:start + 1000]
        ids += queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in chunk], priority=NEWSLETTER_PRIORITY)
    return ids
