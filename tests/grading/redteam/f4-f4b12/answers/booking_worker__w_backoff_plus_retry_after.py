# WRONG (retry): Retry-After *added* to the backoff ("wait what the provider says, then back off"),
# not used as a floor: every retry after a 429 comes up to 2^(n-1) s later than the policy allows.
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
            queue.retry(conn, job, queue.backoff_delay(job.attempts) + (getattr(error, "retry_after_s", None) or 0),
                        error)
    else:
        queue.ack(conn, job)
    return job.id
