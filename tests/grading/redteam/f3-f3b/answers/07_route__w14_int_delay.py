# RULE: retry-with-backoff: the wait truncated to whole seconds (attempt 1 always retries at once)
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay = backoff_delay(job.attempts)
    retry_after = getattr(error, "retry_after_s", None)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return queue.Retry(int(delay))
