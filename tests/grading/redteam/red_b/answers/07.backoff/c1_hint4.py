# kind: correct
# rule: correct (hint 4's final answer, word for word)
def backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))
