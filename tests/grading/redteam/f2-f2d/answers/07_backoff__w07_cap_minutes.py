# RULE: cap: 5 (minutes) used as seconds
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    return rng.uniform(0, min(5, 2 ** (attempt - 1)))
