# RULE: correct
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    match error:
        case PermanentError():
            return queue.Dead("permanent")
        case _ if job.attempts >= job.max_attempts:
            return queue.Dead("max_attempts")
    delay = backoff_delay(job.attempts)
    retry_after = vars(error).get("retry_after_s") if hasattr(error, "__dict__") else None
    if retry_after is not None and retry_after > delay:
        delay = retry_after
    return queue.Retry(delay)
