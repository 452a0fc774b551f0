# EXERCISE: 07.backoff
# EXPECT: correct
# RULE: correct (doubling loop)
def backoff(attempt, rng):
    ceiling = 1.0
    for _ in range(attempt - 1):
        ceiling = min(ceiling * 2, CAP_S)
        if ceiling == CAP_S:
            break
    return rng.uniform(0.0, ceiling)
