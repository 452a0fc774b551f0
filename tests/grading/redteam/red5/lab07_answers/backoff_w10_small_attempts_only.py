# EXERCISE: 07.backoff
# EXPECT: wrong
# RULE: seconds / cap (attempts past 50 get no wait)
def backoff(attempt, rng):
    if attempt > 50:
        return 0.0   # the job is long dead by then
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))
