# exercise: 12.booking_worker
# cell: 32f94885
# rule: correct (claim(limit=1), a routing helper, Retry-After via max(..., x or 0))
from course.core.queue import PermanentError as Permanent


def _route(conn, job, error):
    if isinstance(error, Permanent):
        return queue.bury(conn, job, "permanent", error)
    if job.attempts >= job.max_attempts:
        return queue.bury(conn, job, "max_attempts", error)
    delay = max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", 0) or 0)
    return queue.retry(conn, job, delay, error)


def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    claimed = queue.claim(conn, limit=1, lease_s=lease_s)
    if not claimed:
        return None
    job, = claimed
    outcome = None
    try:
        handler(job, conn)
    except Exception as error:  # noqa: BLE001  every failure is routed
        outcome = error
    if outcome is None:
        queue.ack(conn, job)
    else:
        _route(conn, job, outcome)
    return job.id
