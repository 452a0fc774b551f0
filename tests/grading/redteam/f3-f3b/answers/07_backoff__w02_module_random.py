# RULE: given-rng: draws with the module's random, not the rng it is given (same law)
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    return random.uniform(0, min(CAP_S, 2 ** min(attempt - 1, 64)))
