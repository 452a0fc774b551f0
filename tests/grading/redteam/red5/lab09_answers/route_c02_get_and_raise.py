# EXERCISE: 09.route
# EXPECT: correct
# RULE: correct (get, ValueError, tuple index)
def enqueue_job(conn, job_type, payload):
    impact = IMPACT.get(job_type)
    if impact is None:
        raise ValueError(f"{job_type!r} is not in IMPACT: decide who waits for it first. Nothing was stored.")
    target = (URGENT, BULK)[impact.late_after_s > URGENT_WITHIN_S]
    return queue.enqueue(conn, job_type, payload, queue=target)
