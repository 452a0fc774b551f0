# exercise: 00.first_job
# kind: wrong
# rule: one-job (of type send_welcome_email: the type is misspelt)
from course.core import queue


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    return queue.enqueue(conn, "send_welcome", {"user_id": user_id})
