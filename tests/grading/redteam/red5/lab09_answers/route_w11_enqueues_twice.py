# EXERCISE: 09.route
# EXPECT: wrong
# RULE: store-as-given (two jobs: a copy for the bulk queue)
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    if impact.late_after_s <= URGENT_WITHIN_S:
        queue.enqueue(conn, job_type, payload, queue=BULK)      # a backup copy, in case urgent is busy
        return queue.enqueue(conn, job_type, payload, queue=URGENT)
    return queue.enqueue(conn, job_type, payload, queue=BULK)
