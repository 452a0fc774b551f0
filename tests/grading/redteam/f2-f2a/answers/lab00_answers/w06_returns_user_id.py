# exercise: 00.first_job
# kind: wrong
# rule: return-id (returns the user's id, not the job's)
from course.core import queue


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
    return user_id
