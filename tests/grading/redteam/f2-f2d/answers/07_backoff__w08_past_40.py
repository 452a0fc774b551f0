# RULE: seconds/cap: special-cases attempts past 40 (the statement's range)
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    if attempt > 40:
        return 1.0
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))
