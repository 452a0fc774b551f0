# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: full-jitter / given-rng (reseeded: the same wait every time)
def backoff(attempt, rng):
    rng.seed(attempt)
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))
