# expect: wrong
# rule: return-id (returns max(id) of jobs: another session's job when someone else enqueues meanwhile)
def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
    return conn.execute("SELECT max(id) FROM jobs").fetchone()[0]
