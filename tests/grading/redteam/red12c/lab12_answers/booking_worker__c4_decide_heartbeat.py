# correct: queue.decide for the route, and a fenced heartbeat before the send (allowed: "one that is fenced does no harm")
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, "default", lease_s=lease_s, worker="stayhub")
    if not job:
        return None
    if queue.extend_lease(conn, job, lease_s) is None:
        return job.id  # not ours any more
    outcome = None
    try:
        handler(job, conn)
    except BaseException as error:  # noqa: BLE001 - every failure is the queue's business
        if not isinstance(error, Exception):
            raise
        outcome = queue.decide(job, permanent=isinstance(error, PermanentError))
        if isinstance(outcome, queue.Dead):
            queue.bury(conn, job, outcome.reason, error)
        else:
            ra = getattr(error, "retry_after_s", None)
            queue.retry(conn, job, outcome.delay_s if ra is None else max(ra, outcome.delay_s), error)
    if outcome is None:
        queue.ack(conn, job)
    return job.id
