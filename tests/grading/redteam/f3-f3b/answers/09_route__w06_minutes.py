# RULE: by-impact: compares late_after_s in minutes with URGENT_WITHIN_S in seconds
def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    late_min = IMPACT[job_type].late_after_s / 60
    target = URGENT if late_min <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=target)
