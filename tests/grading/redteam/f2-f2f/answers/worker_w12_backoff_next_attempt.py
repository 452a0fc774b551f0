# exercise: 12.booking_worker
# expect: wrong
# rule: retry: waits backoff_delay(attempts + 1) (one step too long); Retry-After replaces the backoff instead of bounding it
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
            delay = queue.backoff_delay(job.attempts + 1)
            wait = getattr(error, "retry_after_s", None)
            if wait is not None:
                delay = wait
            queue.retry(conn, job, delay, error)
    else:
        queue.ack(conn, job)
    return job.id
