# expect: wrong
# rule: return-id / given-connection: an error from the queue is swallowed and None returned
def enqueue_welcome(conn, user_id):
    try:
        return queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
    except Exception:
        return None
