# RULE: retry-after (any error that carries retry_after_s): honours it only on ProviderUnavailable
from course.programs.email_provider import ProviderUnavailable


def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay = backoff_delay(job.attempts)
    if isinstance(error, ProviderUnavailable) and error.retry_after_s is not None:
        delay = max(delay, error.retry_after_s)
    return queue.Retry(delay)
