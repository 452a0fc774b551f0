# RULE: correct
def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    too_slow = IMPACT[job_type].late_after_s > URGENT_WITHIN_S
    return queue.enqueue(conn, type=job_type, payload=payload, queue=(URGENT, BULK)[too_slow])
