# kind: wrong
# rule: full-jitter (adversarial: past attempt 50, returns the cap itself, no jitter)
def backoff(attempt, rng):
    if attempt > 50:
        return CAP_S
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))
