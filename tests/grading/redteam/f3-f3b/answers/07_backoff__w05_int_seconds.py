# RULE: seconds/full-jitter: whole seconds (truncated): attempt 1 always waits 0
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    ceiling = min(CAP_S, 2 ** min(attempt - 1, 64))
    return int(rng.uniform(0, ceiling))
