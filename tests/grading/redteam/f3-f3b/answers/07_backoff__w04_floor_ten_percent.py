# RULE: full-jitter: never less than a tenth of the ceiling (not drawn evenly from 0)
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    ceiling = min(CAP_S, 2 ** min(attempt - 1, 64))
    return rng.uniform(ceiling / 10, ceiling)   # at least a little wait, so we never hammer
