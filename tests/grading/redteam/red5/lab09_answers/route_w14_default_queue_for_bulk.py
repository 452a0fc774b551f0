# EXERCISE: 09.route
# EXPECT: wrong
# RULE: by-impact (the rest to 'default', not BULK)
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    if impact.late_after_s <= URGENT_WITHIN_S:
        return queue.enqueue(conn, job_type, payload, queue=URGENT)
    return queue.enqueue(conn, job_type, payload)
