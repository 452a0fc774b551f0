# wrong (retry): reads `retry_after` (no such attribute): the provider's Retry-After is silently ignored
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
            retry_after = getattr(error, "retry_after", None)
            if retry_after:
                delay = max(delay, retry_after)
            queue.retry(conn, job, delay, error)
    else:
        queue.ack(conn, job)
    return job.id
