# EXERCISE: 09.newsletter
# EXPECT: wrong
# RULE: return-ids (sorted descending)
def enqueue_newsletter(conn, guest_ids):
    ids = queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids], priority=NEWSLETTER_PRIORITY)
    return sorted(ids, reverse=True)
