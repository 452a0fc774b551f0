# RULE: cap: capped after the draw
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    return min(CAP_S, rng.uniform(0, 2 ** (attempt - 1)))
