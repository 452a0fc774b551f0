# exercise: 12.booking_worker
# expect: correct
# rule: correct: early returns per branch, the delay computed by a helper
def _delay_for(job, error):
    delay = queue.backoff_delay(job.attempts)
    retry_after = getattr(error, "retry_after_s", None)
    return delay if retry_after is None or retry_after < delay else float(retry_after)


def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, queue.DEFAULT_QUEUE, lease_s=lease_s)
    if not job:
        return None
    try:
        handler(job, conn)
    except PermanentError as error:
        queue.bury(conn, job, reason="permanent", error=error)
        return job.id
    except Exception as error:
        if job.attempts < job.max_attempts:
            queue.retry(conn, job, _delay_for(job, error), error)
        else:
            queue.bury(conn, job, "max_attempts", error)
        return job.id
    queue.ack(conn, job)
    return job.id
