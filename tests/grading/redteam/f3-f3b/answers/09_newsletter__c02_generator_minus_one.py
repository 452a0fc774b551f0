# RULE: correct
def enqueue_newsletter(conn, guest_ids):
    """Enqueue one send_newsletter job per guest, below the default priority, in one transaction."""
    payloads = ({"guest_id": guest} for guest in guest_ids)
    return queue.enqueue_many(conn, type="send_newsletter", payloads=payloads, queue="default", priority=-1)
