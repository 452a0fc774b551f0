# exercise: 00.first_job
# kind: correct
# rule: correct (a plain INSERT with the table's defaults, RETURNING id)
from psycopg.types.json import Jsonb


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    row = conn.execute("INSERT INTO jobs (type, payload) VALUES ('send_welcome_email', %(payload)s) RETURNING id",
                       {"payload": Jsonb({"user_id": user_id})}).fetchone()
    return row[0]
