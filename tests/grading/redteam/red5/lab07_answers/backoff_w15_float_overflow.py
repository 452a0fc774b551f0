# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: seconds (attempts in the thousands: OverflowError)
def backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2.0 ** (attempt - 1)))
