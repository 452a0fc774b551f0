# RULE: correct
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    retry_after = getattr(error, "retry_after_s", None)
    match error:
        case PermanentError():
            return queue.Dead("permanent")
        case _ if job.attempts >= job.max_attempts:
            return queue.Dead("max_attempts")
        case _ if retry_after is not None:
            return queue.Retry(max(retry_after, backoff_delay(job.attempts)))
        case _:
            return queue.Retry(backoff_delay(job.attempts))
