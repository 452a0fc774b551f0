# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: cap
def backoff(attempt, rng):
    return rng.uniform(0, 2 ** (attempt - 1))
