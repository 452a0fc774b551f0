# correct: hint 4, word for word
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except Exception as error:
        if isinstance(error, PermanentError):
            queue.bury(conn, job, "permanent", error)
        elif job.attempts >= job.max_attempts:
            queue.bury(conn, job, "max_attempts", error)
        else:
            delay_s = queue.backoff_delay(job.attempts)
            if getattr(error, "retry_after_s", None):
                delay_s = max(delay_s, error.retry_after_s)
            queue.retry(conn, job, delay_s, error)
    else:
        queue.ack(conn, job)
    return job.id
