# EXERCISE: 09.newsletter
# EXPECT: wrong
# RULE: one-job-per-guest (unique key per guest: a second newsletter to the same guest is dropped)
def enqueue_newsletter(conn, guest_ids):
    guest_ids = list(guest_ids)
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY, unique_keys=[f"newsletter:{g}" for g in guest_ids])
