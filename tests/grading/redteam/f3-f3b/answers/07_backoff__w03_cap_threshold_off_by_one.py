# RULE: cap: the cap starts one attempt late (attempt 10 draws up to 512 s)
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    if attempt > 10:           # 2^9 = 512 > 300: from here on the cap holds
        return rng.uniform(0, CAP_S)
    return rng.uniform(0, 2 ** (attempt - 1))
