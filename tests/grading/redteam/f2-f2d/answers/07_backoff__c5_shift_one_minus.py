# RULE: correct
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    if attempt > 9:
        top = float(CAP_S)
    else:
        top = float(1 << (attempt - 1))
    return (1.0 - rng.random()) * top
