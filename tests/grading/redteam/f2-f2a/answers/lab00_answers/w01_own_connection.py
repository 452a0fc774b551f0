# exercise: 00.first_job
# kind: wrong
# rule: given-connection (the job is committed on a connection of its own: a rolled-back sign-up keeps its welcome)
import psycopg
from course.core import queue


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    schema = conn.execute("SELECT current_schema()").fetchone()[0]
    with psycopg.connect(conn.info.dsn, autocommit=True) as own:
        own.execute(f'SET search_path TO "{schema}"')
        return queue.enqueue(own, "send_welcome_email", {"user_id": user_id})
