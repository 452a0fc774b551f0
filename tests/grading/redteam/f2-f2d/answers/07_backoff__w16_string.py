# RULE: seconds: returns a formatted string
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    return f"{rng.uniform(0, min(CAP_S, 2 ** (attempt - 1))):.3f}"
