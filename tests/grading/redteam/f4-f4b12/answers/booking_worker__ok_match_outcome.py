# correct, unlike the obvious: decide first (a small pure function), then one write; `match` on the outcome
from dataclasses import dataclass


@dataclass
class _Outcome:
    kind: str
    delay_s: float = 0.0


def _outcome_for(job, error):
    if isinstance(error, PermanentError):
        return _Outcome("permanent")
    if job.attempts >= job.max_attempts:
        return _Outcome("max_attempts")
    wait = queue.backoff_delay(job.attempts)
    retry_after = getattr(error, "retry_after_s", None)
    if retry_after is not None and retry_after > wait:
        wait = retry_after
    return _Outcome("retry", wait)


def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    claimed = queue.claim(conn, limit=1, lease_s=lease_s)
    if not claimed:
        return None
    (job,) = claimed
    error = None
    try:
        handler(job, conn)
    except Exception as caught:
        error = caught
    if error is None:
        queue.ack(conn, job)
        return job.id
    outcome = _outcome_for(job, error)
    match outcome.kind:
        case "retry":
            queue.retry(conn, job, outcome.delay_s, error)
        case reason:
            queue.bury(conn, job, reason, error)
    return job.id
