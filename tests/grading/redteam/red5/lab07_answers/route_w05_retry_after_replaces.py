# EXERCISE: 07.route
# EXPECT: wrong
# RULE: retry-after (the larger of the two)
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    retry_after = getattr(error, "retry_after_s", None)
    if retry_after is not None:
        return queue.Retry(retry_after)
    return queue.Retry(backoff_delay(job.attempts))
