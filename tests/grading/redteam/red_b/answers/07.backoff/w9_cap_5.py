# kind: wrong
# rule: cap (cap of 5 -- minutes meant, seconds written)
def backoff(attempt, rng):
    return rng.uniform(0, min(5, 2 ** (attempt - 1)))
