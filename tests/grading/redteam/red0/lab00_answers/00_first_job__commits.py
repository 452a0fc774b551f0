# expect: wrong
# rule: given-connection (commits the caller's transaction so the job is "safe")
def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    job_id = queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
    try:
        conn.commit()
    except Exception:
        pass
    return job_id
