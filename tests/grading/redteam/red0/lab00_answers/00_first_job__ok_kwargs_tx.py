# expect: correct
# rule: correct (keywords, dict(), a transaction of its own: a savepoint inside the caller's)
def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    with conn.transaction():
        new_id = queue.enqueue(conn, type="send_welcome_email", payload=dict(user_id=user_id), priority=5)
    return new_id
