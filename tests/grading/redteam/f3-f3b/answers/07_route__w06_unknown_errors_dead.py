# RULE: others-transient: only the provider's transient errors and timeouts are retried; any other exception is dead-lettered
from course.programs.email_provider import TransientEmailError

def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if not isinstance(error, (TransientEmailError, TimeoutError, ConnectionError)):
        return queue.Dead("permanent")          # a bug of ours: retrying will not fix it
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay = backoff_delay(job.attempts)
    retry_after = getattr(error, "retry_after_s", None)
    return queue.Retry(max(delay, retry_after or 0))
