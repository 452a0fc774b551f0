# RULE: correct
def enqueue_newsletter(conn, guest_ids):
    """Enqueue one send_newsletter job per guest, below the default priority, in one transaction."""
    if len(guest_ids) == 0:
        return []
    ids = queue.enqueue_many(conn, "send_newsletter", list(map(lambda g: dict(guest_id=g), guest_ids)),
                             priority=NEWSLETTER_PRIORITY)
    return tuple(ids)
