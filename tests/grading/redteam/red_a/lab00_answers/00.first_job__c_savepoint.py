# expect: correct
# rule: correct: a transaction of its own inside the caller's (a savepoint)
def enqueue_welcome(conn, user_id):
    with conn.transaction():
        job = queue.enqueue(conn, type="send_welcome_email", payload=dict(user_id=user_id))
    return job
