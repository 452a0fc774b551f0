# exercise: 00.first_job
# kind: correct
# rule: correct (a savepoint of its own, keyword arguments, another queue and priority)
from course.core import queue as jobs_queue


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    with conn.transaction():
        job_id = jobs_queue.enqueue(conn, type="send_welcome_email", payload=dict(user_id=user_id),
                                    queue="emails", priority=3)
    return job_id
