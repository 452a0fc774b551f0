# wrong (by-impact): a hard-coded 60 s instead of URGENT_WITHIN_S: the channel manager (2 min) goes to bulk
def enqueue_job(conn, job_type, payload):
    target = URGENT if IMPACT[job_type].late_after_s <= 60 else BULK
    return queue.enqueue(conn, job_type, payload, queue=target)
