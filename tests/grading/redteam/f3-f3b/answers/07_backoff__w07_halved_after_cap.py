# RULE: cap: caps 2^attempt at 300, then halves: the cap is really 150 s
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    return rng.uniform(0, min(CAP_S, 2 ** min(attempt, 64)) / 2)
