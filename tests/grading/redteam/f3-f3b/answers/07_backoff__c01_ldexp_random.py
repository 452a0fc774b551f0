# RULE: correct
import math

def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    ceiling = min(CAP_S, math.ldexp(1.0, min(attempt - 1, 100)))
    return ceiling * rng.random()
