# wrong (by-impact: the queue): one queue with a priority instead of two queues
def enqueue_job(conn, job_type, payload):
    urgent = IMPACT[job_type].late_after_s <= URGENT_WITHIN_S
    return queue.enqueue(conn, job_type, payload, priority=10 if urgent else -10)
