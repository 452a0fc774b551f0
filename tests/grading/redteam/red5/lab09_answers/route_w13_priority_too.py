# EXERCISE: 09.route
# EXPECT: wrong
# RULE: store-as-given (arguable: adds a priority)
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    if impact.late_after_s <= URGENT_WITHIN_S:
        return queue.enqueue(conn, job_type, payload, queue=URGENT, priority=10)
    return queue.enqueue(conn, job_type, payload, queue=BULK, priority=-10)
