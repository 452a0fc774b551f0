# kind: wrong
# rule: cap (the exponent capped at 8 to avoid overflow: the ceiling stops at 256 s, never reaches 300)
def backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2 ** min(attempt - 1, 8)))
