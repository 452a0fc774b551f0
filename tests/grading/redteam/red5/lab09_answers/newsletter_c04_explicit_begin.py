# EXERCISE: 09.newsletter
# EXPECT: correct
# RULE: correct (BEGIN/COMMIT by hand)
def enqueue_newsletter(conn, guest_ids):
    conn.execute("BEGIN")
    try:
        ids = queue.enqueue_many(conn, "send_newsletter", [dict(guest_id=g) for g in guest_ids],
                                 priority=NEWSLETTER_PRIORITY)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return list(ids)
