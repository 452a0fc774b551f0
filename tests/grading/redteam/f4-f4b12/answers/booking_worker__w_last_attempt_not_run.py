# WRONG (poison): "no point running the last attempt": a job claimed for its 8th run is buried unrun
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    if job.attempts >= job.max_attempts:
        queue.bury(conn, job, "max_attempts", job.__dict__.get("last_error") or "out of attempts")
        return job.id
    try:
        handler(job, conn)
    except PermanentError as error:
        queue.bury(conn, job, "permanent", error)
    except Exception as error:
        queue.retry(conn, job, max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0), error)
    else:
        queue.ack(conn, job)
    return job.id
