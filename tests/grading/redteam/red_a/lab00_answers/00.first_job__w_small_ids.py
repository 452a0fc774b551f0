# expect: wrong
# rule: ids-not-data: the id stored as a 32-bit int-ish float for big ids (works only for small ids)
def enqueue_welcome(conn, user_id):
    uid = user_id if user_id < 1_000_000 else float(user_id)
    return queue.enqueue(conn, "send_welcome_email", {"user_id": uid})
