# wrong (permanent): a permanent error is dead-lettered at once, but under the reason 'max_attempts'
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except Exception as error:
        if isinstance(error, PermanentError) or job.attempts >= job.max_attempts:
            queue.bury(conn, job, "max_attempts", error)
        else:
            ra = getattr(error, "retry_after_s", None)
            queue.retry(conn, job, max(queue.backoff_delay(job.attempts), ra or 0), error)
    else:
        queue.ack(conn, job)
    return job.id
