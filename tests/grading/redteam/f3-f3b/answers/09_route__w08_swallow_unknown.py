# RULE: refuse-unknown: the KeyError is caught and None returned (no error reaches the caller)
def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    try:
        impact = IMPACT[job_type]
    except KeyError:
        print(f"unknown job type {job_type!r}: not enqueued")
        return None
    target = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=target)
