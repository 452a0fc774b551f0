# wrong (retry): the delay converted to milliseconds ("make_interval wants ms"): waits 1000x too long
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
            ra = getattr(error, "retry_after_s", None) or 0
            queue.retry(conn, job, max(queue.backoff_delay(job.attempts), ra) * 1000, error)
    else:
        queue.ack(conn, job)
    return job.id
