# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: cap (cap the ceiling, then draw)
def backoff(attempt, rng):
    return min(CAP_S, rng.uniform(0, 2 ** min(attempt - 1, 60)))
