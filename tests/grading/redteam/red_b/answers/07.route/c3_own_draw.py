# kind: correct
# rule: correct (its own draw of the same law, with the random module; a different shape)
def route(job, error):
    permanent = isinstance(error, PermanentError)
    spent = job.attempts >= job.max_attempts
    if permanent or spent:
        return queue.Dead("permanent" if permanent else "max_attempts")
    wait = random.uniform(0, min(CAP_S, 2 ** (job.attempts - 1)))
    return queue.Retry(max(wait, getattr(error, "retry_after_s", None) or 0.0))
