# EXERCISE: 09.newsletter
# EXPECT: wrong
# RULE: below-default (+10: sign confused)
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              priority=abs(NEWSLETTER_PRIORITY))
