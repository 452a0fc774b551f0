# wrong (retry): backoff of the *next* attempt: waits up to twice as long as the policy allows
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
            ra = getattr(error, "retry_after_s", None)
            queue.retry(conn, job, max(delay, ra or 0), error)
    else:
        queue.ack(conn, job)
    return job.id
