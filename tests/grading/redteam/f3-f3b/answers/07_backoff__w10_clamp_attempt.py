# RULE: cap: caps by clamping the attempt at 9 (2^8 = 256 s), so the ceiling never reaches 300 s
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    attempt = min(attempt, 9)                 # 2^8 = 256: "about 5 minutes", and no huge powers
    return rng.uniform(0, 2 ** (attempt - 1))
