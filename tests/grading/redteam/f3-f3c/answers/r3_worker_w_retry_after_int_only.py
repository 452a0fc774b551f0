# exercise: 12.booking_worker
# cell: 32f94885
# rule: retry (Retry-After honoured only when it is an int: the provider's float seconds are ignored)
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
            wait = queue.backoff_delay(job.attempts)
            after = getattr(error, "retry_after_s", None)
            if isinstance(after, int) and after > wait:
                wait = after
            queue.retry(conn, job, wait, error)
    else:
        queue.ack(conn, job)
    return job.id
