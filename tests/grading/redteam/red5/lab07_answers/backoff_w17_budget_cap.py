# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: cap / grows (after attempt 8, always the cap)
def backoff(attempt, rng):
    if attempt > 8:
        return CAP_S
    return rng.uniform(0, 2 ** (attempt - 1))
