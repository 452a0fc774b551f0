# exercise: 12.booking_worker
# expect: wrong
# rule: returns: ignores lease_s and always leases for 60 s
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=60)
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
            if wait is not None:
                delay = max(delay, wait)
            queue.retry(conn, job, delay, error)
    else:
        queue.ack(conn, job)
    return job.id
