# wrong (poison, adversarial): buries a job at its last attempt *before* running it ("it would fail anyway")
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    if job.attempts >= job.max_attempts and job.attempts > 1:
        queue.bury(conn, job, "max_attempts", job.__dict__.get("last_error") or "out of attempts")
        return job.id
    try:
        handler(job, conn)
    except PermanentError as error:
        queue.bury(conn, job, "permanent", error)
    except Exception as error:
        if job.attempts >= job.max_attempts:
            queue.bury(conn, job, "max_attempts", error)
        else:
            ra = getattr(error, "retry_after_s", None)
            queue.retry(conn, job, max(queue.backoff_delay(job.attempts), ra or 0), error)
    else:
        queue.ack(conn, job)
    return job.id
