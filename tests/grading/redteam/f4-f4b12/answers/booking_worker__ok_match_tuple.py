# correct, unlike the obvious: decide first (a small pure function returning a tuple), then one write;
# `match` on the outcome (ok_match_outcome without its @dataclass, which the CLI loader refused)
def _outcome_for(job, error):
    if isinstance(error, PermanentError):
        return ("permanent", 0.0)
    if job.attempts >= job.max_attempts:
        return ("max_attempts", 0.0)
    wait = queue.backoff_delay(job.attempts)
    retry_after = getattr(error, "retry_after_s", None)
    if retry_after is not None and retry_after > wait:
        wait = retry_after
    return ("retry", wait)


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
    match _outcome_for(job, error):
        case ("retry", delay_s):
            queue.retry(conn, job, delay_s, error)
        case (reason, _):
            queue.bury(conn, job, reason, error)
    return job.id
