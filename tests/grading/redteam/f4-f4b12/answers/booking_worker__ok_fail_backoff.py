# correct, unlike the obvious: queue.fail() decides (permanent / last attempt / retry), given a backoff
# that never goes below this error's Retry-After.
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except Exception as error:
        floor = getattr(error, "retry_after_s", None) or 0.0
        queue.fail(conn, job, error, backoff=lambda attempt: max(queue.backoff_delay(attempt), floor))
    else:
        queue.ack(conn, job)
    return job.id
