# RULE: correct
def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    impact = IMPACT.get(job_type)
    if impact is None:
        raise ValueError(f"{job_type!r} is not in IMPACT: decide who waits for it first")
    if impact.late_after_s <= URGENT_WITHIN_S:
        chosen = URGENT
    else:
        chosen = BULK
    job_id = queue.enqueue(conn, job_type, payload, queue=chosen)
    return job_id
