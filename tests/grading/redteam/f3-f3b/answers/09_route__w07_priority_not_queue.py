# RULE: by-impact: urgent jobs get a high priority on the default queue instead of queue URGENT
def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    impact = IMPACT[job_type]
    if impact.late_after_s <= URGENT_WITHIN_S:
        return queue.enqueue(conn, job_type, payload, priority=10)
    return queue.enqueue(conn, job_type, payload, queue=BULK)
