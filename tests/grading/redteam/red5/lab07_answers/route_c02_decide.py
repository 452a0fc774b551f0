# EXERCISE: 07.route
# EXPECT: correct
# RULE: correct (queue.decide, then Retry-After)
def route(job, error):
    outcome = queue.decide(job, permanent=isinstance(error, PermanentError))
    asked = getattr(error, "retry_after_s", None)
    if isinstance(outcome, queue.Retry) and asked is not None:
        return queue.Retry(max(outcome.delay_s, asked))
    return outcome
