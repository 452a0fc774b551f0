"""Rule checkers that more than one lab asks for: one rule, one checker, one set of messages.

    backoff with full jitter   07.backoff, 12.retry_policy: wait random(0, min(300, 2^(attempt-1))) s
    the wait grows             07.backoff: the mean wait doubles with each attempt, up to the cap

A later lab that asks again for what an earlier lab checked calls the checker here, so an answer the
earlier lab rejects cannot pass the later one (12.retry_policy used to accept a cap applied after the
draw, which 07.backoff rejects).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from course.core.backoff import CAP_S, backoff_ceiling

from course.grading.trial import Trial

DRAWS = 2_000  # per attempt: the mean of 2,000 uniform draws lies within 1.5 % of the ceiling of its
#                expected value 99.99 % of the time, so the 5 % bands below fail a right answer ~never
BELOW_CAP = (1, 2, 3, 4, 6, 8, 9)  # ceilings 1 s .. 256 s
AT_CAP = (10, 12, 20, 40)  # 2^(n-1) > 300 s: the cap decides


def is_seconds(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def ks_uniform(values: list[float], high: float) -> float:
    """The Kolmogorov–Smirnov distance between the draws and the uniform distribution on [0, high]."""
    ordered = sorted(v / high for v in values)
    n = len(ordered)
    return max(max((i + 1) / n - x, x - i / n) for i, x in enumerate(ordered))


def spread_problem(values: list[float], ceiling: float) -> str | None:
    """Why these draws are not spread evenly over [0, ceiling] (full jitter), or None."""
    mean = sum(values) / len(values)
    low, high = min(values), max(values)
    if not 0.45 * ceiling <= mean <= 0.55 * ceiling:
        return f"mean {mean:.3g} s, expected about {ceiling / 2:.3g} s (half the {ceiling:g} s ceiling)"
    if low > 0.05 * ceiling or high < 0.95 * ceiling:
        return (f"every draw between {low:.3g} and {high:.3g} s, expected them to reach close to 0 and "
                f"close to {ceiling:g} s")
    distance = ks_uniform(values, ceiling)
    if distance > 0.05:  # 0.05 with 2,000 draws: a true uniform exceeds it about once in 10^7
        return f"not evenly spread: some parts of [0, {ceiling:g}] s get far more draws than others (KS {distance:.2f})"
    return None


def describe_draws(values: list[float]) -> str:
    return f"{len(values):,} draws from {min(values):.3g} to {max(values):.3g} s, mean {sum(values) / len(values):.3g} s"


def expect_backoff_with_full_jitter(t: Trial, draw: Callable[[int], list], call: str, *,
                                    at_cap: tuple[int, ...] = AT_CAP) -> dict[int, list]:
    """The rule: after attempt n failed, wait random(0, min(300, 2^(n-1))) seconds, spread evenly.

    `draw(n)` returns DRAWS waits for attempt n (through t.call: learner code); `call` names one call in
    the messages, with {n} for the attempt: "backoff({n}, rng)", "retry_delay({n})". A range failure is
    the first cause: the spread is judged only on attempts whose draws all lie in range. Returns the
    draws, by attempt, for a caller that judges more of them (expect_growth)."""
    draws = {attempt: draw(attempt) for attempt in BELOW_CAP + at_cap}

    not_numbers = [(a, v) for a, values in draws.items() for v in values if not is_seconds(v)]
    t.require("returns a number of seconds", ok=not not_numbers,
              got=not_numbers[0][1] if not_numbers else None, expected="an int or a float, like 0.73",
              example=call.format(n=not_numbers[0][0]) if not_numbers else None)

    outside = [(a, v) for a in BELOW_CAP for v in draws[a] if not 0 <= v <= backoff_ceiling(a)]
    first = outside[0] if outside else None
    t.expect("waits between 0 and 2^(attempt-1) s: up to 1 s, 2 s, 4 s ...", ok=not outside,
             got=f"{first[1]:.4g} s" if first else None,
             expected=f"0 to {backoff_ceiling(first[0]):g} s" if first else None,
             example=call.format(n=first[0]) if first else None,
             note="attempt counts from 1: after the first failed attempt, wait up to 2^0 = 1 s" if first else None)

    over_cap = [(a, v) for a in at_cap for v in draws[a] if not 0 <= v <= CAP_S]
    first = over_cap[0] if over_cap else None
    t.expect("never more than 5 minutes, however many attempts (the cap)", ok=not over_cap,
             got=f"{first[1]:,.4g} s" if first else None, expected=f"0 to {CAP_S:g} s" if first else None,
             example=call.format(n=first[0]) if first else None,
             note="cap the ceiling before you draw: min(300, 2^(attempt-1))" if first else None)

    in_range = [a for a in BELOW_CAP + at_cap if all(0 <= v <= backoff_ceiling(a) for v in draws[a])]
    problems = [(a, spread_problem(draws[a], backoff_ceiling(a))) for a in in_range]
    problems = [(a, why) for a, why in problems if why]
    first = problems[0] if problems else None
    t.expect("full jitter: waits spread evenly from 0 to the ceiling, so jobs that failed together come back "
             "apart", ok=not problems,
             got=describe_draws(draws[first[0]]) if first else None,
             expected=f"spread over 0 to {backoff_ceiling(first[0]):g} s" if first else None,
             example=f"{call.format(n=first[0])}, {DRAWS:,} times" if first else None,
             note=(first[1] + "\n(random.uniform(0, ceiling) draws evenly; capping *after* the draw, or "
                   "adding jitter on top of a fixed part, does not)") if first else None)
    return draws


GROWTH = "the wait grows with each attempt: the mean wait doubles from one attempt to the next, up to the cap"


def expect_growth(t: Trial, draws: dict[int, list], call: str) -> None:
    """The rule: the wait grows with each attempt, below the cap — the mean wait doubles with the ceiling.

    Its own check, so an answer that never grows (rng.uniform(0, 1) for every attempt) hears that, not
    only that its draws miss the ceiling. Judged on consecutive attempts below the cap; a mean of 2,000
    uniform draws is within 3 % of half its ceiling, so asking for three quarters of the growth the
    ceilings give (1.5 times the last mean when the ceiling doubles) never fails a right answer."""
    attempts = [a for a in BELOW_CAP if a in draws and all(is_seconds(v) for v in draws[a])]
    means = {a: sum(draws[a]) / len(draws[a]) for a in attempts}
    flat = [(a, b) for a, b in zip(attempts, attempts[1:])
            if means[b] < 1.5 * means[a] * backoff_ceiling(b) / (2 * backoff_ceiling(a))]
    if not flat:
        t.expect(GROWTH, ok=True)
        return
    a, b = flat[0]
    t.expect(GROWTH, ok=False, got=f"mean wait {means[a]:.3g} s after attempt {a}, {means[b]:.3g} s after attempt {b}",
             expected=f"about {backoff_ceiling(a) / 2:g} s, then about {backoff_ceiling(b) / 2:g} s",
             example=f"{call.format(n=a)} and {call.format(n=b)}, {DRAWS:,} times each",
             note="the ceiling is 2^(attempt-1) s: it doubles with each attempt, until the 5-minute cap")
