# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: full-jitter (skewed towards the ceiling)
def backoff(attempt, rng):
    return min(CAP_S, 2 ** (attempt - 1)) * rng.random() ** 0.5
