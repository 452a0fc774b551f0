# EXERCISE: 07.backoff
# EXPECT: correct
# RULE: correct (uniform(ceiling, 0), bit shift)
def backoff(attempt, rng):
    return rng.uniform(min(CAP_S, 1 << (attempt - 1)), 0)
