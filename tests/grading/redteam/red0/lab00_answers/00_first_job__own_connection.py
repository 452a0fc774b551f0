# expect: wrong
# rule: given-connection (a new autocommit connection on the same schema: a rolled-back sign-up keeps its welcome)
def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    schema = conn.execute("SELECT current_schema()").fetchone()[0]
    with db.connect(schema) as mine:
        return queue.enqueue(mine, "send_welcome_email", {"user_id": user_id})
