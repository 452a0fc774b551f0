# wrong (return-id): forgets to return the id
def enqueue_job(conn, job_type, payload):
    target = URGENT if IMPACT[job_type].late_after_s <= URGENT_WITHIN_S else BULK
    queue.enqueue(conn, job_type, payload, queue=target)
