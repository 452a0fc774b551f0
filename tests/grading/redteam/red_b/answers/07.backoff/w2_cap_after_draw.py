# kind: wrong
# rule: cap (caps the draw, not the ceiling)
def backoff(attempt, rng):
    return min(CAP_S, rng.uniform(0, 2 ** min(attempt - 1, 1000)))
