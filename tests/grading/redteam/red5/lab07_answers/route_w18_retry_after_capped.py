# EXERCISE: 07.route
# EXPECT: wrong
# RULE: retry-after (capped at 300 s)
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = min(CAP_S, max(delay_s, error.retry_after_s))
    return queue.Retry(delay_s)
