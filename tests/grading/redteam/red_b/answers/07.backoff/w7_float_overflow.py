# kind: wrong
# rule: seconds (2.0 ** (attempt - 1) overflows from attempt 1026: attempts run into the thousands)
def backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2.0 ** (attempt - 1)))
