# EXERCISE: 07.backoff
# EXPECT: correct
# RULE: correct (backoff_delay with the rng)
def backoff(attempt, rng):
    return backoff_delay(attempt, rng=rng)
