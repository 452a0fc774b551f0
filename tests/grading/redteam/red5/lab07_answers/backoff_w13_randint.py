# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: full-jitter (whole numbers drawn)
def backoff(attempt, rng):
    return float(rng.randint(0, int(min(CAP_S, 2 ** (attempt - 1)))))
