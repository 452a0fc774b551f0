# RULE: others-transient: reads error.retry_after_s directly: a timeout (no such attribute) raises AttributeError
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay = backoff_delay(job.attempts)
    if error.retry_after_s is not None:
        delay = max(delay, error.retry_after_s)
    return queue.Retry(delay)
