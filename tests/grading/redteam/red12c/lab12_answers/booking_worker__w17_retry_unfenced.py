# wrong (fenced): the retry is hand-written to fold in Retry-After, and updates by id only: a worker whose
# lease ran out pushes back the job another worker now runs
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
            delay = max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0)
            conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s), lease_token = NULL, "
                         "last_error = %s WHERE id = %s", [delay, f"{type(error).__name__}: {error}", job.id])
    else:
        queue.ack(conn, job)
    return job.id
