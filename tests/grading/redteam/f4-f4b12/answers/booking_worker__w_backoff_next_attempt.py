# WRONG (retry): the backoff of the *next* attempt, backoff_delay(attempts + 1): waits drawn from
# random(0, 2^n), twice the stated ceiling 2^(n-1)
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
            queue.retry(conn, job, max(delay, getattr(error, "retry_after_s", None) or 0), error)
    else:
        queue.ack(conn, job)
    return job.id
