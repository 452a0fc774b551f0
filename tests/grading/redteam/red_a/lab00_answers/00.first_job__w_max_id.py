# expect: wrong
# rule: return-id: the newest job's id, which is another session's when someone enqueues meanwhile
def enqueue_welcome(conn, user_id):
    queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
    return conn.execute("SELECT max(id) FROM jobs").fetchone()[0]
