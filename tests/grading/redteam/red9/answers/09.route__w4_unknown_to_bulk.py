# wrong (refuse-unknown): a type nobody classified quietly goes to bulk
def enqueue_job(conn, job_type, payload):
    impact = IMPACT.get(job_type)
    late = impact.late_after_s if impact else float("inf")
    return queue.enqueue(conn, job_type, payload, queue=URGENT if late <= URGENT_WITHIN_S else BULK)
