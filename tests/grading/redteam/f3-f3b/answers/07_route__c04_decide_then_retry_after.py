# RULE: correct
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    decision = queue.decide(job, permanent=isinstance(error, PermanentError))
    retry_after = getattr(error, "retry_after_s", None)
    if isinstance(decision, queue.Retry) and retry_after is not None:
        return queue.Retry(max(decision.delay_s, retry_after))
    return decision
