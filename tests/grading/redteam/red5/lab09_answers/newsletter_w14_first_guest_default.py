# EXERCISE: 09.newsletter
# EXPECT: wrong
# RULE: own-order / below-default (the first job at 0, 'to get it going')
def enqueue_newsletter(conn, guest_ids):
    guest_ids = list(guest_ids)
    if not guest_ids:
        return []
    with conn.transaction():
        first = queue.enqueue(conn, "send_newsletter", {"guest_id": guest_ids[0]})
        rest = queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids[1:]],
                                  priority=NEWSLETTER_PRIORITY)
    return [first, *rest]
