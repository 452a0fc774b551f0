# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: cap (exponent capped at 8: 256 s, not 300)
def backoff(attempt, rng):
    return rng.uniform(0, 2 ** min(attempt - 1, 8))
