# expect: wrong
# rule: ids-not-data: the payload carries more than the id
def enqueue_welcome(conn, user_id):
    return queue.enqueue(conn, "send_welcome_email", {"user_id": user_id, "template": "welcome-v2"})
