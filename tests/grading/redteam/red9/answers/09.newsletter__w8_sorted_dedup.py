# wrong (return-ids in the guests' order / one job per guest): sorts and de-duplicates the guests
def enqueue_newsletter(conn, guest_ids):
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in sorted(set(guest_ids))],
                              priority=NEWSLETTER_PRIORITY)
