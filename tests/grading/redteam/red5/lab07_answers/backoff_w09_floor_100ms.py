# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: full-jitter (drawn from 0.1 s, not 0)
def backoff(attempt, rng):
    return rng.uniform(0.1, min(CAP_S, 2 ** (attempt - 1)))
