def enqueue_job(conn, job_type, payload):
    if job_type not in IMPACT:
        raise ValueError(f"{job_type!r} has no business impact yet: decide who waits for it first")
    late = IMPACT[job_type].late_after_s
    return queue.enqueue(conn, job_type, payload, queue=(BULK, URGENT)[late <= URGENT_WITHIN_S])
