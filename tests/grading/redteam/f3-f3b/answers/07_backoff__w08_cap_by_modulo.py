# RULE: cap: keeps the ceiling under 300 by wrapping it (512 % 300 = 212), not capping
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    ceiling = 2 ** (attempt - 1)
    if ceiling > CAP_S:
        ceiling = ceiling % CAP_S or CAP_S
    return rng.uniform(0, ceiling)
