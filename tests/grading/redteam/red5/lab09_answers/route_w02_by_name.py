# EXERCISE: 09.route
# EXPECT: wrong
# RULE: by-impact (from the name)
def enqueue_job(conn, job_type, payload):
    if job_type not in IMPACT:
        raise ValueError(f"unclassified job type {job_type!r}")
    urgent = any(word in job_type for word in ("confirmation", "password", "sync", "channel"))
    return queue.enqueue(conn, job_type, payload, queue=URGENT if urgent else BULK)
