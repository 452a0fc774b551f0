# expect: wrong
# rule: one-job (enqueues two jobs, "one for now, one as a backup")
def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    first = queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
    queue.enqueue(conn, "send_welcome_email", {"user_id": user_id}, delay_s=60)
    return first
