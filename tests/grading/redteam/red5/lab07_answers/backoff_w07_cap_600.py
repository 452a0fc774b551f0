# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: cap (10 minutes, not 5)
def backoff(attempt, rng):
    return rng.uniform(0, min(600, 2 ** (attempt - 1)))
