# RULE: retry-after: hasattr() only: a 503 without Retry-After (retry_after_s None) raises TypeError in max()
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay = backoff_delay(job.attempts)
    if hasattr(error, "retry_after_s"):
        delay = max(delay, error.retry_after_s)
    return queue.Retry(delay)
