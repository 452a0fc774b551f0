# RULE: correct
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    from course.core.backoff import backoff_ceiling as top
    import random as _r
    budget_left = job.max_attempts - job.attempts
    if issubclass(type(error), PermanentError):
        return queue.Dead(reason="permanent")
    if budget_left <= 0:
        return queue.Dead(reason="max_attempts")
    wait = _r.random() * top(job.attempts)
    try:
        floor = float(error.retry_after_s or 0)
    except AttributeError:
        floor = 0.0
    return queue.Retry(delay_s=wait if wait > floor else floor)
