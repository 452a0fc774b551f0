# exercise: 12.booking_worker
# expect: wrong
# rule: fenced: acks by id with plain SQL, without the lease token (a worker whose lease ran out deletes the other's job)
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
            delay = queue.backoff_delay(job.attempts)
            wait = getattr(error, "retry_after_s", None)
            if wait is not None:
                delay = max(delay, wait)
            queue.retry(conn, job, delay, error)
    else:
        conn.execute("DELETE FROM jobs WHERE id = %s", [job.id])
    return job.id
