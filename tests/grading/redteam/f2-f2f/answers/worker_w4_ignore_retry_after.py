# exercise: 12.booking_worker
# expect: wrong
# rule: retry: ignores the provider's Retry-After (backoff only)
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except PermanentError as error:
        queue.bury(conn, job, "permanent", error)
    except Exception as error:
        if job.attempts >= job.max_attempts:
            queue.bury(conn, job, "max_attempts", error)
        else:
            delay = queue.backoff_delay(job.attempts)
            wait = getattr(error, "retry_after_s", None)
            queue.retry(conn, job, delay, error)
    else:
        queue.ack(conn, job)
    return job.id
