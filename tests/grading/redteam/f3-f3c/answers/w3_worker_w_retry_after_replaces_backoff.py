# exercise: 12.booking_worker
# cell: 32f94885
# rule: arguable — retry (a Retry-After replaces the backoff instead of being its floor: after a 429 saying 1 s at attempt 7, it waits 1 s, not up to 64 s)
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
            asked = getattr(error, "retry_after_s", None)
            queue.retry(conn, job, asked if asked is not None else queue.backoff_delay(job.attempts), error)
    else:
        queue.ack(conn, job)
    return job.id
