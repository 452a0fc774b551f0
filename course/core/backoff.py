"""How long to wait before retrying a failed job: exponential backoff with full jitter and a cap.

After attempt n fails, wait a random time in [0, min(cap, base * 2**(n-1))]: up to 1 s, 2 s, 4 s, ...
never more than 5 minutes. The doubling gives a struggling provider room to recover; the randomness
spreads the retries of many jobs that failed together, so they do not all come back at the same second.
With the defaults and 8 attempts there are 7 waits, at most 1 + 2 + ... + 64 = 127 s in all.
"""

from __future__ import annotations

import random

BASE_S = 1.0
CAP_S = 300.0
MAX_ATTEMPTS = 8


def backoff_ceiling(attempt: int, *, base: float = BASE_S, cap: float = CAP_S) -> float:
    """The longest wait after `attempt` (1 = the first run) has failed."""
    if attempt < 1:
        raise ValueError(f"attempt counts from 1; got {attempt}")
    # 2**1000 overflows a float; the cap has long taken over by then
    return min(cap, base * 2 ** min(attempt - 1, 64))


def backoff_delay(attempt: int, *, base: float = BASE_S, cap: float = CAP_S,
                  rng: random.Random | None = None) -> float:
    """A random wait in [0, backoff_ceiling(attempt)] ("full jitter")."""
    return (rng or random).uniform(0.0, backoff_ceiling(attempt, base=base, cap=cap))
