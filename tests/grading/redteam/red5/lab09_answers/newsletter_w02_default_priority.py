# EXERCISE: 09.newsletter
# EXPECT: wrong
# RULE: below-default (priority 0)
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids])
