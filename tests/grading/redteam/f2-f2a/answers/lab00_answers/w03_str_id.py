# exercise: 00.first_job
# kind: wrong
# rule: ids-not-data (the payload's user_id is a string, not the id given)
from course.core import queue


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    return queue.enqueue(conn, "send_welcome_email", {"user_id": str(user_id)})
