# exercise: 12.booking_worker
# cell: 32f94885
# rule: correct (queue.fail decides permanent / max_attempts / retry; Retry-After as the backoff's floor)
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except Exception as error:
        floor = getattr(error, "retry_after_s", None) or 0.0
        queue.fail(conn, job, error, backoff=lambda attempt: max(queue.backoff_delay(attempt), floor))
        return job.id
    queue.ack(conn, job)
    return job.id
