# RULE: retry-after: caps the provider's Retry-After at CAP_S (5 minutes): a provider asking for 10 minutes is retried too soon
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay = backoff_delay(job.attempts)
    retry_after = getattr(error, "retry_after_s", None)
    if retry_after is not None:
        delay = min(CAP_S, max(delay, retry_after))   # never more than 5 minutes, as the policy says
    return queue.Retry(delay)
