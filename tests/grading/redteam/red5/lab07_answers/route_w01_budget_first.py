# EXERCISE: 07.route
# EXPECT: wrong
# RULE: permanent-first
def route(job, error):
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
