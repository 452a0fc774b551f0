# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: seconds (milliseconds)
def backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1))) * 1000
