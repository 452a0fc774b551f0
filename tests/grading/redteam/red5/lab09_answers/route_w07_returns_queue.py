# EXERCISE: 09.route
# EXPECT: wrong
# RULE: return-id
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    queue_name = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    queue.enqueue(conn, job_type, payload, queue=queue_name)
    return queue_name
