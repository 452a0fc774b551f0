# kind: wrong
# rule: ceiling (2 ** attempt - 1: 1, 3, 7, 15 ... not 1, 2, 4, 8)
def backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2 ** attempt - 1))
