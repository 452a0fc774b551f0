# exercise: 12.booking_worker
# expect: wrong
# rule: retry: retries after a fixed 1 s instead of backoff_delay(attempts)
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
            delay = 1.0
            wait = getattr(error, "retry_after_s", None)
            if wait is not None:
                delay = max(delay, wait)
            queue.retry(conn, job, delay, error)
    else:
        queue.ack(conn, job)
    return job.id
