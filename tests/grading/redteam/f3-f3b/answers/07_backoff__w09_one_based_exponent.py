# RULE: ceiling: 2^attempt, not 2^(attempt-1): attempt 1 waits up to 2 s
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    return rng.uniform(0, min(CAP_S, 2 ** min(attempt, 64)))
