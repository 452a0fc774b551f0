# exercise: 12.booking_worker
# cell: 32f94885
# rule: correct (a fenced heartbeat before the send, as "Left to you" allows; the route written with queue.decide)
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    queue.extend_lease(conn, job, lease_s)   # fenced: does nothing once the lease is someone else's
    try:
        handler(job, conn)
    except Exception as error:
        wait_at_least = getattr(error, "retry_after_s", None) or 0.0
        outcome = queue.decide(job, permanent=isinstance(error, PermanentError),
                               backoff=lambda n: max(queue.backoff_delay(n), wait_at_least))
        if isinstance(outcome, queue.Retry):
            queue.retry(conn, job, outcome.delay_s, error)
        else:
            queue.bury(conn, job, outcome.reason, error)
    else:
        queue.ack(conn, job)
    return job.id
