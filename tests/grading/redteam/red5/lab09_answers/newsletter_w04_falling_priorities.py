# EXERCISE: 09.newsletter
# EXPECT: wrong
# RULE: own-order (a priority per job)
def enqueue_newsletter(conn, guest_ids):
    with conn.transaction():
        return [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY - n)
                for n, g in enumerate(guest_ids)]
