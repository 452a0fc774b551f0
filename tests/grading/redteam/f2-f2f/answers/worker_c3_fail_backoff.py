# exercise: 12.booking_worker
# expect: correct
# rule: correct: queue.fail with a backoff function that honours the Retry-After (a closure)
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except BaseException as error:
        if not isinstance(error, Exception):
            raise
        floor = getattr(error, "retry_after_s", None)
        queue.fail(conn, job, error,
                   backoff=lambda n: max(queue.backoff_delay(n), floor) if floor else queue.backoff_delay(n))
        return job.id
    queue.ack(conn, job)
    return job.id
