# EXERCISE: 07.backoff
# EXPECT: correct
# RULE: correct (backoff_ceiling)
def backoff(attempt, rng):
    top = backoff_ceiling(attempt)
    return top - rng.uniform(0, top)
