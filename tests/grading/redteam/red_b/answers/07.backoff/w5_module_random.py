# kind: wrong
# rule: given-rng (draws with the random module, not the rng given)
def backoff(attempt, rng):
    return random.uniform(0, min(CAP_S, 2 ** (attempt - 1)))
