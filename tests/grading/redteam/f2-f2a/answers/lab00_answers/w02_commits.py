# exercise: 00.first_job
# kind: wrong
# rule: given-connection (commits the caller's transaction: a sign-up rolled back afterwards keeps its welcome)
from course.core import queue


def enqueue_welcome(conn, user_id):
    """Enqueue a welcome email for this user; return the job's id."""
    job_id = queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
    if not conn.autocommit:
        try:
            conn.commit()  # make sure the welcome is saved
        except Exception:
            pass
    return job_id
