# EXERCISE: 07.route
# EXPECT: wrong
# RULE: others-transient (error.retry_after_s on any error)
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if error.retry_after_s:
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
