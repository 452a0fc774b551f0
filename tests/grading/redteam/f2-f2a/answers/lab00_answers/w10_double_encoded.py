# exercise: 00.first_job
# kind: wrong
# rule: ids-not-data (the payload is stored as a JSON string, not an object)
import json

from psycopg.types.json import Jsonb


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    return conn.execute("INSERT INTO jobs (type, payload) VALUES (%s, %s) RETURNING id",
                        ["send_welcome_email", Jsonb(json.dumps({"user_id": user_id}))]).fetchone()[0]
