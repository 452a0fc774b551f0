# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: full-jitter
def backoff(attempt, rng):
    return min(CAP_S, 2 ** (attempt - 1))
