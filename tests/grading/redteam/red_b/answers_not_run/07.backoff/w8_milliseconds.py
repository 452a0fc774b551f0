# kind: wrong
# rule: seconds (milliseconds)
def backoff(attempt, rng):
    return 1000 * rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))
