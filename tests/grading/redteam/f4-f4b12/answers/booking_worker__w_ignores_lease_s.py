# WRONG (returns): the lease always StayHub's 60 s, whatever lease_s says
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=stayhub.LEASE_S)
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
            queue.retry(conn, job, max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0),
                        error)
    else:
        queue.ack(conn, job)
    return job.id
