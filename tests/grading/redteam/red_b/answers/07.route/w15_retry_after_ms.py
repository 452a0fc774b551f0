# kind: wrong
# rule: retry-after (Retry-After read as milliseconds: divided by 1000)
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s / 1000)
    return queue.Retry(delay_s)
