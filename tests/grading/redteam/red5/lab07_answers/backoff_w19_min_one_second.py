# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: ceiling (attempt 1 waits up to 2 s: max(1, ...))
def backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, max(2, 2 ** (attempt - 1))))
