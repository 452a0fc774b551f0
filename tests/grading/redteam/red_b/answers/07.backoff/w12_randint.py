# kind: wrong
# rule: full-jitter (whole seconds with randint: attempt 1 waits 0 or 1 s, never 0.5)
def backoff(attempt, rng):
    return rng.randint(0, int(min(CAP_S, 2 ** (attempt - 1))))
