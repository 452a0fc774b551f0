# expect: wrong
# rule: one-job (type is send_welcome, not send_welcome_email)
def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    return queue.enqueue(conn, "send_welcome", {"user_id": user_id})
