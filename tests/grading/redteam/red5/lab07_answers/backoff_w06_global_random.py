# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: given-rng
def backoff(attempt, rng):
    return random.uniform(0, min(CAP_S, 2 ** (attempt - 1)))
