# kind: wrong
# rule: full-jitter (drawn between 1 and the ceiling, not 0)
def backoff(attempt, rng):
    return rng.uniform(1, min(CAP_S, 2 ** (attempt - 1)))
