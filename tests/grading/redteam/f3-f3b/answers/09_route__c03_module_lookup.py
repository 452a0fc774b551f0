# RULE: correct
def queue_for(job_type):
    seconds = newsletter.IMPACT[job_type].late_after_s   # read at call time: new types included
    return newsletter.URGENT if seconds <= newsletter.URGENT_WITHIN_S else newsletter.BULK


def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    return queue.enqueue(conn, job_type, payload, queue=queue_for(job_type))
