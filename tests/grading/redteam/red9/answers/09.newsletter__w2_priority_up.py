# wrong (below-default): priority +10: a learner who thinks "bigger number = later"
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids], priority=10)
