# kind: correct
# rule: correct (bit shift ceiling, capped; the reference's backoff_ceiling)
def backoff(attempt, rng):
    ceiling = min(backoff_ceiling(attempt), CAP_S, 1 << min(attempt - 1, 62))
    return rng.uniform(0.0, ceiling)
