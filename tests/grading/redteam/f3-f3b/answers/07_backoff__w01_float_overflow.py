# RULE: seconds (any attempt, into the thousands): 2.0 ** (attempt - 1) overflows a float past attempt 1025
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    ceiling = min(CAP_S, 2.0 ** (attempt - 1))
    return rng.uniform(0, ceiling)
