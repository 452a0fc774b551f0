# wrong (store-as-given / return-id): a unique_key per type "to avoid duplicates": a second job of a type is not stored
def enqueue_job(conn, job_type, payload):
    target = URGENT if IMPACT[job_type].late_after_s <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=target, unique_key=job_type)
