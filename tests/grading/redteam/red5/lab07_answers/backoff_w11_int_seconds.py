# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: full-jitter (whole seconds)
def backoff(attempt, rng):
    return int(rng.uniform(0, min(CAP_S, 2 ** (attempt - 1))))
