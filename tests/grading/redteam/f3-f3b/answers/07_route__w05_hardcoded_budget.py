# RULE: budget: hard-codes the course's 8 attempts instead of job.max_attempts
from course.core.backoff import MAX_ATTEMPTS

def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= MAX_ATTEMPTS:
        return queue.Dead("max_attempts")
    delay = backoff_delay(job.attempts)
    retry_after = getattr(error, "retry_after_s", None)
    return queue.Retry(max(delay, retry_after or 0))
