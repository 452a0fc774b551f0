# kind: wrong
# rule: others-transient (an error without an HTTP status -- a bug of ours -- is dead-lettered as permanent)
def route(job, error):
    if isinstance(error, PermanentError) or not hasattr(error, "status"):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
