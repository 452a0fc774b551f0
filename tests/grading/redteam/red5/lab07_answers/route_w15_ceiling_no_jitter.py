# EXERCISE: 07.route
# EXPECT: wrong
# RULE: retry-with-backoff (the ceiling, no jitter)
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    return queue.Retry(max(backoff_ceiling(job.attempts), getattr(error, "retry_after_s", None) or 0.0))
