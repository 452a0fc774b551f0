# expect: wrong
# rule: ids-not-data (payload carries the id as a string, {"user_id": "7"})
def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    return queue.enqueue(conn, "send_welcome_email", {"user_id": str(user_id)})
