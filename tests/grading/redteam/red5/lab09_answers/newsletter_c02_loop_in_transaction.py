# EXERCISE: 09.newsletter
# EXPECT: correct
# RULE: correct (a loop of enqueue in one transaction)
def enqueue_newsletter(conn, guest_ids):
    ids = []
    with conn.transaction():
        for guest in guest_ids:
            ids.append(queue.enqueue(conn, "send_newsletter", {"guest_id": guest}, queue="default",
                                     priority=NEWSLETTER_PRIORITY, notify=False))
    return ids
