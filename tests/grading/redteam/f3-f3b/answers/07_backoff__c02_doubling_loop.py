# RULE: correct
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    ceiling = 1.0
    for _ in range(attempt - 1):
        ceiling *= 2
        if ceiling >= CAP_S:
            ceiling = CAP_S
            break
    return rng.uniform(ceiling, 0)   # uniform takes its bounds in either order
