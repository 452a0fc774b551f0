# EXERCISE: 07.backoff
# EXPECT: correct
# RULE: correct (ceiling * rng.random(), float guard)
def backoff(attempt, rng):
    ceiling = CAP_S if attempt > 20 else min(CAP_S, 2.0 ** (attempt - 1))
    return ceiling * rng.random()
