# exercise: 12.booking_worker
# cell: 32f94885
# rule: retry (wrong units: the wait in milliseconds, 1000 times too long)
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
            wait_ms = queue.backoff_delay(job.attempts) * 1000
            asked = getattr(error, "retry_after_s", None)
            if asked is not None:
                wait_ms = max(wait_ms, asked * 1000)
            queue.retry(conn, job, wait_ms, error)
    else:
        queue.ack(conn, job)
    return job.id
