# kind: wrong
# rule: full-jitter (returns the ceiling itself)
def backoff(attempt, rng):
    return min(CAP_S, 2 ** (attempt - 1))
