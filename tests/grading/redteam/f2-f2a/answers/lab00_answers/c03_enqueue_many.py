# exercise: 00.first_job
# kind: correct
# rule: correct (enqueue_many with one payload)
from course.core.queue import enqueue_many as store_jobs


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    [job_id] = store_jobs(conn, "send_welcome_email", [{"user_id": user_id}])
    return job_id
