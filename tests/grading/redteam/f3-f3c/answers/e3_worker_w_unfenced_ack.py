# exercise: 12.booking_worker
# cell: 32f94885
# rule: fenced (acks by id only: a worker whose lease ran out deletes the job another worker now runs)
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
            wait = queue.backoff_delay(job.attempts)
            if getattr(error, "retry_after_s", None):
                wait = max(wait, error.retry_after_s)
            queue.retry(conn, job, wait, error)
    else:
        conn.execute("DELETE FROM jobs WHERE id = %s", [job.id])
    return job.id
