def enqueue_job(conn, job_type, payload):
    try:
        impact = IMPACT[job_type]
    except KeyError:
        print(f"unknown job type {job_type}: not stored")
        return None
    q = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=q)
