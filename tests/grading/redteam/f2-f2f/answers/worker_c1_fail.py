# exercise: 12.booking_worker
# expect: correct
# rule: correct: decision by queue.decide, Retry-After folded in, error captured in a variable and handled after the try
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    claimed = queue.claim(conn, limit=1, lease_s=lease_s)
    if not claimed:
        return None
    job = claimed[0]
    failure = None
    try:
        handler(job, conn)
    except Exception as error:  # noqa: BLE001 - every failure is reported below
        failure = error
    if failure is None:
        queue.ack(conn, job)
        return job.id
    outcome = queue.decide(job, permanent=isinstance(failure, PermanentError))
    if isinstance(outcome, queue.Dead):
        queue.bury(conn, job, outcome.reason, failure)
    else:
        floor = getattr(failure, "retry_after_s", None) or 0.0
        queue.retry(conn, job, max(outcome.delay_s, floor), failure)
    return job.id
