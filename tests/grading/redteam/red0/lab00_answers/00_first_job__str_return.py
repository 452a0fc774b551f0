# expect: wrong
# rule: return-id (returns the id as text, "17")
def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    return str(queue.enqueue(conn, "send_welcome_email", {"user_id": user_id}))
