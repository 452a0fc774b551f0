# expect: correct
# rule: correct (an INSERT of its own, RETURNING id)
from psycopg.types.json import Jsonb


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    row = conn.execute("INSERT INTO jobs (type, payload) VALUES ('send_welcome_email', %s) RETURNING id",
                       [Jsonb({"user_id": user_id})]).fetchone()
    return row[0]
