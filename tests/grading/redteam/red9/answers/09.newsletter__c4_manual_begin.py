# correct: BEGIN/COMMIT by hand, with ROLLBACK on any error
def enqueue_newsletter(conn, guest_ids):
    conn.execute("BEGIN")
    try:
        ids = [queue.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY) for g in guest_ids]
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return ids
