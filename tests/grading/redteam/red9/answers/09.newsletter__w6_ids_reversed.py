# wrong (return-ids): the ids come back newest first
def enqueue_newsletter(conn, guest_ids):
    ids = queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids], priority=NEWSLETTER_PRIORITY)
    return sorted(ids, reverse=True)
