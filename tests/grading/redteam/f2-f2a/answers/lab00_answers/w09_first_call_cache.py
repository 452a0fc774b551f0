# exercise: 00.first_job
# kind: wrong
# rule: one-job (remembers users already welcomed in this process: after a rolled-back sign-up, the same user's second sign-up stores nothing)
from course.core import queue

_welcomed = {}


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    if user_id not in _welcomed:
        _welcomed[user_id] = queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
    return _welcomed[user_id]
