# exercise: 00.first_job
# kind: correct
# rule: correct (hint 3, word for word)
def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    return queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
