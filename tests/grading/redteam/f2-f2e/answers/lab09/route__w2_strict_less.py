def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    q = URGENT if impact.late_after_s < URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=q)
