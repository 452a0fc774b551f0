# kind: wrong
# rule: permanent-first (only EmailRejected, by name, is permanent: other PermanentErrors retried)
def route(job, error):
    if type(error).__name__ == "EmailRejected":
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
