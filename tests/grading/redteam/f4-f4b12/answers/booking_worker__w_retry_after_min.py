# WRONG (retry): Retry-After used as a ceiling ("retry no later than the provider says"): min(), not max()
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
            if getattr(error, "retry_after_s", None) is not None:
                delay = min(delay, error.retry_after_s)
            queue.retry(conn, job, delay, error)
    else:
        queue.ack(conn, job)
    return job.id
