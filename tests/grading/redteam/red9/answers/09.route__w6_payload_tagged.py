# wrong (store-as-given): adds the routing decision to the payload
def enqueue_job(conn, job_type, payload):
    target = URGENT if IMPACT[job_type].late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, {**payload, "routed_to": target}, queue=target)
