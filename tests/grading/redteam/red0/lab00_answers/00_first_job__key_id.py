# expect: wrong
# rule: ids-not-data (payload key "id" instead of "user_id")
def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    return queue.enqueue(conn, "send_welcome_email", {"id": user_id})
