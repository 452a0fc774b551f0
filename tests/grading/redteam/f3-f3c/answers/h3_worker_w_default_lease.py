# exercise: 12.booking_worker
# cell: 32f94885
# rule: returns (ignores lease_s: claims with the queue's default 30 s lease)
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
            wait = max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0)
            queue.retry(conn, job, wait, error)
    else:
        queue.ack(conn, job)
    return job.id
