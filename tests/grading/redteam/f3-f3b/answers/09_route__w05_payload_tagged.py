# RULE: store-as-given: adds the routing decision to the payload
def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    impact = IMPACT[job_type]
    target = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, {**payload, "routed_by": "impact"}, queue=target)
