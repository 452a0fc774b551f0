# expect: wrong
# rule: given-connection: a connection of its own, so the caller's rollback keeps the job
def enqueue_welcome(conn, user_id):
    schema = conn.execute("SELECT current_schema()").fetchone()[0]
    with db.connect(schema) as own:
        return queue.enqueue(own, "send_welcome_email", {"user_id": user_id})
