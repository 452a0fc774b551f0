# exercise: 12.booking_worker
# expect: wrong
# rule: retry: a fixed 30 s wait whatever the attempt (above the ceiling 2^(n-1) of attempts 1-5, so not backoff_delay(attempts))
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
            delay = 30.0
            wait = getattr(error, "retry_after_s", None)
            if wait is not None:
                delay = max(delay, wait)
            queue.retry(conn, job, delay, error)
    else:
        queue.ack(conn, job)
    return job.id
