# EXERCISE: 09.route
# EXPECT: wrong
# RULE: store-as-given (payload changed)
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    queue_name = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, {**payload, "routed_to": queue_name}, queue=queue_name)
