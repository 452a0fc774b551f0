# RULE: ceiling/cap: exponent capped at 8 (256 s, never 300)
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    return rng.uniform(0, 2 ** min(attempt - 1, 8))
