# kind: wrong
# rule: ceiling (2^attempt: attempt 1 waits up to 2 s)
def backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2 ** attempt))
