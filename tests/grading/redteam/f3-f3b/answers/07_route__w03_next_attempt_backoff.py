# RULE: retry-with-backoff: backoff_delay(job.attempts + 1) ("the next attempt"): waits twice as long
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay = backoff_delay(job.attempts + 1)
    retry_after = getattr(error, "retry_after_s", None)
    return queue.Retry(max(delay, retry_after) if retry_after is not None else delay)
