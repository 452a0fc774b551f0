# EXERCISE: 09.newsletter
# EXPECT: wrong
# RULE: one-transaction (more than 500: one commit each)
def enqueue_newsletter(conn, guest_ids):
    guest_ids = list(guest_ids)
    if len(guest_ids) <= 500:
        return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                                  priority=NEWSLETTER_PRIORITY)
    return [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY, notify=False)
            for g in guest_ids]
