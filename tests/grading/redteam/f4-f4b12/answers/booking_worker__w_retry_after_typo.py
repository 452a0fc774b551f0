# WRONG (retry): the attribute misspelt (retry_after, the header's name): getattr's default hides it,
# so a 429's Retry-After is never honoured.
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
            delay = max(queue.backoff_delay(job.attempts), getattr(error, "retry_after", None) or 0.0)
            queue.retry(conn, job, delay, error)
    else:
        queue.ack(conn, job)
    return job.id
