# EXERCISE: 09.newsletter
# EXPECT: wrong
# RULE: one-job-per-guest (type 'newsletter')
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "newsletter", [{"guest_id": g} for g in guest_ids], priority=NEWSLETTER_PRIORITY)
