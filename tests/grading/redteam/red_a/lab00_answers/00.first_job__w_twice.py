# expect: wrong
# rule: one-job: two jobs (one for now, one as a reminder a day later)
def enqueue_welcome(conn, user_id):
    queue.enqueue(conn, "send_welcome_email", {"user_id": user_id}, delay_s=86400)
    return queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
