# WRONG (ack-after / nothing lost): an in-memory "already handled" set of job ids: a job that comes back
# to this worker (a retry after a failure, a lease that ran out) is acked without running again.
_handled = set()


def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    if job.id in _handled:
        queue.ack(conn, job)
        return job.id
    _handled.add(job.id)
    try:
        handler(job, conn)
    except PermanentError as error:
        queue.bury(conn, job, "permanent", error)
    except Exception as error:
        if job.attempts >= job.max_attempts:
            queue.bury(conn, job, "max_attempts", error)
        else:
            queue.retry(conn, job, max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0),
                        error)
    else:
        queue.ack(conn, job)
    return job.id
