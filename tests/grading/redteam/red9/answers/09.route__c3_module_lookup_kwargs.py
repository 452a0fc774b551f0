# correct: looks IMPACT up through the module at call time, keyword arguments, min() of the two limits
def enqueue_job(conn, job_type, payload):
    try:
        late_after_s = newsletter.IMPACT[job_type].late_after_s
    except KeyError:
        raise KeyError(job_type) from None
    on = URGENT if min(late_after_s, URGENT_WITHIN_S) == late_after_s else BULK
    return queue.enqueue(conn, type=job_type, payload=payload, queue=on)
