# RULE: full-jitter: whole seconds only (randint)
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    return float(rng.randint(0, int(min(CAP_S, 2 ** (attempt - 1)))))
