# RULE: correct
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    permanent = isinstance(error, PermanentError)
    spent = job.attempts >= job.max_attempts
    if permanent or spent:
        return queue.Dead("permanent" if permanent else "max_attempts")
    wait = random.uniform(0, backoff_ceiling(job.attempts))
    asked = getattr(error, "retry_after_s", None)
    if asked is not None and asked > wait:
        wait = asked
    return queue.Retry(wait)
