# EXERCISE: 09.newsletter
# EXPECT: wrong
# RULE: one-job-per-guest (payload has more than the guest id)
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g, "campaign": "friday"} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY)
