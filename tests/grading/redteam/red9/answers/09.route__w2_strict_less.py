# wrong (by-impact): off by one: a type exactly URGENT_WITHIN_S late goes to bulk
def enqueue_job(conn, job_type, payload):
    target = URGENT if IMPACT[job_type].late_after_s < URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=target)
