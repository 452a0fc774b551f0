# kind: correct
# rule: correct (ceiling * rng.random())
def backoff(attempt, rng):
    ceiling = CAP_S if attempt > 9 else float(2 ** (attempt - 1))
    return ceiling * rng.random()
