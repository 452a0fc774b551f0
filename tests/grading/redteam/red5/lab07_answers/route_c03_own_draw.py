# EXERCISE: 07.route
# EXPECT: correct
# RULE: correct (own draw of the same law)
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead(reason="permanent")
    elif job.attempts < job.max_attempts:
        floor = getattr(error, "retry_after_s", None) or 0.0
        return queue.Retry(delay_s=max(floor, random.uniform(0, backoff_ceiling(job.attempts))))
    else:
        return queue.Dead(reason="max_attempts")
