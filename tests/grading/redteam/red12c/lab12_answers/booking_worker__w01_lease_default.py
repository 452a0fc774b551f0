# wrong (returns / lease): claims with the queue's default lease (30 s), ignoring lease_s
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn)
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
            ra = getattr(error, "retry_after_s", None)
            queue.retry(conn, job, max(delay, ra or 0), error)
    else:
        queue.ack(conn, job)
    return job.id
