# RULE: full-jitter: a floor of 0.25 s
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    return max(0.25, rng.uniform(0, min(CAP_S, 2 ** (attempt - 1))))
