# kind: wrong
# rule: retry-after (Retry-After replaces the backoff instead of the larger of the two)
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    asked = getattr(error, "retry_after_s", None)
    return queue.Retry(asked if asked else backoff_delay(job.attempts))
