# RULE: budget: on the last attempt, a provider that gave Retry-After gets one more try
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    retry_after = getattr(error, "retry_after_s", None)
    if job.attempts >= job.max_attempts and retry_after is None:
        return queue.Dead("max_attempts")
    delay = backoff_delay(min(job.attempts, job.max_attempts))
    return queue.Retry(max(delay, retry_after or 0))
