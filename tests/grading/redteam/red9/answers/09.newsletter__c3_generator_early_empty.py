# correct: a generator of payloads, an early [] for no guests, a priority further below
def enqueue_newsletter(conn, guest_ids):
    guest_ids = list(guest_ids)
    if not guest_ids:
        return []
    payloads = ({"guest_id": guest_id} for guest_id in guest_ids)
    return list(queue.enqueue_many(conn, "send_newsletter", payloads, queue="default",
                                   priority=NEWSLETTER_PRIORITY - 90))
