# RULE: others-transient / retry-after: any 4xx status is treated as permanent, so a 429 with Retry-After is dead-lettered
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    status = getattr(error, "status", None)
    if isinstance(error, PermanentError) or (status is not None and 400 <= status < 500):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay = backoff_delay(job.attempts)
    retry_after = getattr(error, "retry_after_s", None)
    return queue.Retry(max(delay, retry_after) if retry_after else delay)
