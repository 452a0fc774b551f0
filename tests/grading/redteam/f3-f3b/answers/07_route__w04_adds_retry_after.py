# RULE: retry-after: waits Retry-After plus the backoff, not the larger of the two
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    return queue.Retry(backoff_delay(job.attempts) + (getattr(error, "retry_after_s", None) or 0))
