# kind: correct
# rule: correct (structural pattern matching on the error)
def route(job, error):
    match error:
        case PermanentError():
            return queue.Dead(reason="permanent")
        case _ if job.attempts >= job.max_attempts:
            return queue.Dead(reason="max_attempts")
        case _:
            floor = error.retry_after_s if getattr(error, "retry_after_s", None) is not None else 0
            return queue.Retry(delay_s=max(floor, backoff_delay(job.attempts)))
