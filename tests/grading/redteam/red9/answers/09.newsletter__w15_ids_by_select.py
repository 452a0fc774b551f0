# wrong (return-ids; correct only when nobody else is connected): the ids read back with a SELECT of every newsletter job
def enqueue_newsletter(conn, guest_ids):
    with conn.transaction():
        queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids], priority=NEWSLETTER_PRIORITY)
        return [i for (i,) in conn.execute("SELECT id FROM jobs WHERE type = 'send_newsletter' ORDER BY id")]
