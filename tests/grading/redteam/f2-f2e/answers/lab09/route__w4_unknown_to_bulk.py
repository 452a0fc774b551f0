def enqueue_job(conn, job_type, payload):
    impact = IMPACT.get(job_type)
    if impact is not None and impact.late_after_s <= URGENT_WITHIN_S:
        return queue.enqueue(conn, job_type, payload, queue=URGENT)
    return queue.enqueue(conn, job_type, payload, queue=BULK)
