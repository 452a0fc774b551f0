# exercise: 00.first_job
# kind: wrong
# rule: return-id (reads back max(id): another session's job committed meanwhile is returned instead)
from course.core import queue


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
    return conn.execute("SELECT max(id) FROM jobs").fetchone()[0]
