# EXERCISE: 09.newsletter
# EXPECT: wrong
# RULE: one-job-per-guest / return-ids (arguable: a guest listed twice gets one job)
def enqueue_newsletter(conn, guest_ids):
    unique = list(dict.fromkeys(guest_ids))
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in unique], priority=NEWSLETTER_PRIORITY)
