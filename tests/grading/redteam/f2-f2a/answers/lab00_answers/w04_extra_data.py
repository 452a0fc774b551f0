# exercise: 00.first_job
# kind: wrong
# rule: ids-not-data (the payload carries a flag besides the id)
from course.core import queue


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    return queue.enqueue(conn, "send_welcome_email", {"user_id": user_id, "template": "welcome-v2"})
