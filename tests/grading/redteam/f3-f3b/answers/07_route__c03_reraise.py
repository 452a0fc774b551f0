# RULE: correct
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    try:
        raise error
    except PermanentError:
        return queue.Dead("permanent")
    except BaseException:
        pass
    if job.max_attempts <= job.attempts:
        return queue.Dead("max_attempts")
    return queue.Retry(max(backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0.0))
