# EXERCISE: 07.route
# EXPECT: wrong
# RULE: others-transient (429/408 are 4xx and transient)
def route(job, error):
    status = getattr(error, "status", None)
    if isinstance(error, PermanentError) or (status is not None and 400 <= status < 500):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
