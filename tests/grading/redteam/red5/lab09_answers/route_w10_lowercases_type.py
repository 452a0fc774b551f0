# EXERCISE: 09.route
# EXPECT: wrong
# RULE: store-as-given (type lowercased)
def enqueue_job(conn, job_type, payload):
    job_type = job_type.strip().lower()
    impact = IMPACT[job_type]
    queue_name = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=queue_name)
