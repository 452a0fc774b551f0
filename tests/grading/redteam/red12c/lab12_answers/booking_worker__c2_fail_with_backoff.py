# correct: queue.fail does the routing; the backoff it is given respects the Retry-After
from course.core.backoff import backoff_delay as _draw


def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    claimed = queue.claim(conn, limit=1, lease_s=lease_s)
    if not claimed:
        return None
    (job,) = claimed
    try:
        handler(job, conn)
    except Exception as exc:
        floor = exc.retry_after_s if getattr(exc, "retry_after_s", None) else 0.0
        queue.fail(conn, job, exc, backoff=lambda attempt: max(floor, _draw(attempt)))
        return job.id
    queue.ack(conn, job)
    return job.id
