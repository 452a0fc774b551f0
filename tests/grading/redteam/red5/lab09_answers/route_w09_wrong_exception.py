# EXERCISE: 09.route
# EXPECT: wrong
# RULE: refuse-unknown (not a ValueError or KeyError)
def enqueue_job(conn, job_type, payload):
    if job_type not in IMPACT:
        raise LookupError(f"nobody has classified {job_type!r}")
    queue_name = URGENT if IMPACT[job_type].late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=queue_name)
