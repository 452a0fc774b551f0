# kind: wrong
# rule: others-transient (reads error.retry_after_s directly: a KeyError or a timeout without it raises AttributeError)
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if error.retry_after_s:
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
