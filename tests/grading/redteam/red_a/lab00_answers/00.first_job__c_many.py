# expect: correct
# rule: correct: enqueue_many with one payload, the list's only id
def enqueue_welcome(conn, user_id):
    (job_id,) = queue.enqueue_many(conn, "send_welcome_email", [{"user_id": user_id}])
    return job_id
