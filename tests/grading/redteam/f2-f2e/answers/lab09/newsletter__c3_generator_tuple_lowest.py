from course.core.queue import enqueue_many as store_all


def enqueue_newsletter(conn, guest_ids):
    payloads = ({"guest_id": g} for g in guest_ids)
    return tuple(store_all(conn, "send_newsletter", payloads, priority=-32768, queue="default"))
