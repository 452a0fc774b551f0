# EXERCISE: 09.route
# EXPECT: wrong
# RULE: refuse-unknown (unknown goes to bulk)
def enqueue_job(conn, job_type, payload):
    impact = IMPACT.get(job_type)
    queue_name = URGENT if impact is not None and impact.late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=queue_name)
