# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: full-jitter (not even)
def backoff(attempt, rng):
    return rng.triangular(0, min(CAP_S, 2 ** (attempt - 1)))
