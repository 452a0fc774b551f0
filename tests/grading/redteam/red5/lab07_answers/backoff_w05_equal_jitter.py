# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: full-jitter (half fixed, half random)
def backoff(attempt, rng):
    ceiling = min(CAP_S, 2 ** (attempt - 1))
    return ceiling / 2 + rng.uniform(0, ceiling / 2)
