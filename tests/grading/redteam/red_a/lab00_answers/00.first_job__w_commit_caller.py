# expect: wrong
# rule: given-connection: COMMIT ends the caller's transaction, a rolled-back sign-up keeps its email
def enqueue_welcome(conn, user_id):
    job_id = queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
    conn.execute("COMMIT")  # make sure the job is saved
    return job_id
