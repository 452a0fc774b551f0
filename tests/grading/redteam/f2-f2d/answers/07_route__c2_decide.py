# RULE: correct
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    outcome = queue.decide(job, permanent=isinstance(error, PermanentError))
    if isinstance(outcome, queue.Dead):
        return outcome
    asked = getattr(error, "retry_after_s", None)
    return queue.Retry(outcome.delay_s if asked is None else max(asked, outcome.delay_s))
