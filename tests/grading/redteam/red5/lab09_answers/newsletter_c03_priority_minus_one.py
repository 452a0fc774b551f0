# EXERCISE: 09.newsletter
# EXPECT: correct
# RULE: correct (priority -1, a tuple, generator payloads)
def enqueue_newsletter(conn, guest_ids):
    payloads = ({"guest_id": guest_id} for guest_id in guest_ids)
    return tuple(queue.enqueue_many(conn, type="send_newsletter", payloads=payloads, queue="default", priority=-1))
