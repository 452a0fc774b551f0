# RULE: retry-with-backoff: waits the ceiling (no jitter) instead of backoff_delay's draw
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay = backoff_ceiling(job.attempts)
    retry_after = getattr(error, "retry_after_s", None)
    return queue.Retry(max(delay, retry_after or 0))
