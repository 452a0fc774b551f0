# RULE: by-impact: decides from who_waits ("nobody" means bulk), not from late_after_s
def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    impact = IMPACT[job_type]
    target = BULK if impact.who_waits.lower().startswith("nobody") else URGENT
    return queue.enqueue(conn, job_type, payload, queue=target)
