# EXERCISE: 07.route
# EXPECT: correct
# RULE: correct (match statement)
def route(job, error):
    match error:
        case PermanentError():
            return queue.Dead("permanent")
    if job.max_attempts <= job.attempts:
        return queue.Dead("max_attempts")
    waits = [backoff_delay(job.attempts)]
    if (asked := getattr(error, "retry_after_s", None)) is not None:
        waits.append(asked)
    return queue.Retry(max(waits))
