# EXERCISE: 09.route
# EXPECT: wrong
# RULE: by-impact (IMPACT read once, at definition)
URGENT_TYPES = {name for name, impact in IMPACT.items() if impact.late_after_s <= URGENT_WITHIN_S}
KNOWN = set(IMPACT)

def enqueue_job(conn, job_type, payload):
    if job_type not in KNOWN:
        raise KeyError(job_type)
    return queue.enqueue(conn, job_type, payload, queue=URGENT if job_type in URGENT_TYPES else BULK)
