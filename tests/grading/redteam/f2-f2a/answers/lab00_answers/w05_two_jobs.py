# exercise: 00.first_job
# kind: wrong
# rule: one-job (stores a second, delayed reminder job too)
from course.core import queue


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    job_id = queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
    queue.enqueue(conn, "send_welcome_email", {"user_id": user_id}, delay_s=86400)  # a nudge tomorrow
    return job_id
