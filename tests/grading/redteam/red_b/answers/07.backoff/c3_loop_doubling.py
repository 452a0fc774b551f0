# kind: correct
# rule: correct (a loop that doubles the ceiling and stops at the cap; uniform with reversed bounds)
def backoff(attempt, rng):
    ceiling = 1.0
    for _ in range(attempt - 1):
        ceiling *= 2
        if ceiling >= CAP_S:
            ceiling = CAP_S
            break
    return rng.uniform(ceiling, 0)
