# EXERCISE: 07.route
# EXPECT: wrong
# RULE: retry-after (sum, not the larger)
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    return queue.Retry(backoff_delay(job.attempts) + (getattr(error, "retry_after_s", None) or 0))
