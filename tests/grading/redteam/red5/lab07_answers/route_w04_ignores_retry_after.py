# EXERCISE: 07.route
# EXPECT: wrong
# RULE: retry-after
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    return queue.Retry(backoff_delay(job.attempts))
