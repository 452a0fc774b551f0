# correct: a small table of (limit, queue) pairs, inside an explicit transaction
def enqueue_job(conn, job_type, payload):
    if job_type not in IMPACT:
        raise ValueError("unclassified job type: " + str(job_type))
    tiers = [(URGENT_WITHIN_S, URGENT), (float("inf"), BULK)]
    for limit, name in tiers:
        if IMPACT[job_type].late_after_s <= limit:
            with conn.transaction():
                return queue.enqueue(conn, job_type, payload, queue=name)
