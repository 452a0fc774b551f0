# correct: the obvious shape (claim_one, handler outside any transaction, fenced ack, three routes)
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    """One step of a StayHub worker."""
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
            retry_after = getattr(error, "retry_after_s", None)
            if retry_after is not None:
                delay = max(delay, retry_after)
            queue.retry(conn, job, delay, error)
    else:
        queue.ack(conn, job)
    return job.id
