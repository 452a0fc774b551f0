# RULE: permanent-first: only EmailRejected is permanent, not every PermanentError
from course.programs.email_provider import EmailRejected

def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    if isinstance(error, EmailRejected):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay = backoff_delay(job.attempts)
    retry_after = getattr(error, "retry_after_s", None)
    return queue.Retry(delay if retry_after is None else max(delay, retry_after))
