# EXERCISE: 09.newsletter
# EXPECT: wrong
# RULE: one-transaction (a commit per 1,000)
def enqueue_newsletter(conn, guest_ids):
    guest_ids = list(guest_ids)
    ids = []
    for start in range(0, len(guest_ids), 1000):
        ids += queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids[start:start + 1000]],
                                  priority=NEWSLETTER_PRIORITY)
    return ids
