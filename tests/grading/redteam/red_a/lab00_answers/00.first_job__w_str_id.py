# expect: wrong
# rule: ids-not-data: the id stored as a string ("7"), not the id
def enqueue_welcome(conn, user_id):
    return queue.enqueue(conn, "send_welcome_email", {"user_id": str(user_id)})
