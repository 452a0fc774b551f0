# kind: wrong
# rule: ceiling (treats attempt as 0-based: 2 ** (attempt - 2), attempt 1 waits up to 0.5 s)
def backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 2)))
