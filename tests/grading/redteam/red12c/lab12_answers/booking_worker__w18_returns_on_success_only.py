# wrong (returns): returns the id only when the send succeeded, None after a failure ("nothing done")
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except PermanentError as error:
        queue.bury(conn, job, "permanent", error)
        return None
    except Exception as error:
        if job.attempts >= job.max_attempts:
            queue.bury(conn, job, "max_attempts", error)
        else:
            ra = getattr(error, "retry_after_s", None)
            queue.retry(conn, job, max(queue.backoff_delay(job.attempts), ra or 0), error)
        return None
    queue.ack(conn, job)
    return job.id
