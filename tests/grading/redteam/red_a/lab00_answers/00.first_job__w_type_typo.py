# expect: wrong
# rule: one-job: the wrong type (welcome_email)
def enqueue_welcome(conn, user_id):
    return queue.enqueue(conn, "welcome_email", {"user_id": user_id})
