# expect: wrong
# rule: ids-not-data (payload {"user_id": id, "template": "welcome"}: something else besides the id)
def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    return queue.enqueue(conn, "send_welcome_email", {"user_id": user_id, "template": "welcome"})
