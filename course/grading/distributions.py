"""Randomised answers judged as distributions: the learner's draws against the reference's law, by tests
whose false-alarm rate is bounded and said.

A right answer's draws are random, so any test of them can fail by bad luck; a check must say how often.
Each test here has a proven bound on that probability for draws that follow the law exactly, and a
check splits one budget (FALSE_ALARM, a right answer failing a whole check) among all its tests (the
union bound: the chance that any of k tests fails is at most the sum of theirs).

    law = Law.uniform(0, 8)                          # what the reference draws: uniform on [0, 8] s
    law = Law.uniform(0, 8).floored(30)              # max(that, 30): a wait raised to a Retry-After
    problem = law.problem(draws, alpha)              # None, or why the draws do not follow the law
    budget = Budget(FALSE_ALARM, tests=57)           # alpha for each of 57 tests; budget.said() for people

Two tests, both distribution-free bounds:
  * the Kolmogorov–Smirnov distance (the largest gap between the draws' cumulative share and the law's)
    exceeds eps = sqrt(ln(2/alpha) / 2n) with probability at most alpha, for any law (the
    Dvoretzky–Kiefer–Wolfowitz inequality, with Massart's constant);
  * the draws stay clear of an end of the law's range: no draw in the top (or bottom) delta of the law's
    probability happens with probability (1 - delta)^n; delta is chosen so that this is alpha/2 each.
The first catches a wrong shape (half fixed and half random, a cap applied after the draw); the second
catches a range cut short by a little (up to 95 % of the ceiling), which no shape test of n draws sees.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

FALSE_ALARM = 1e-6  # how often a right answer may fail a whole check, at most, by the luck of its draws


@dataclass(frozen=True)
class Budget:
    """One check's false-alarm rate shared equally among its tests."""
    total: float
    tests: int

    @property
    def alpha(self) -> float:
        return self.total / max(1, self.tests)

    def said(self) -> str:
        """The rate in words: 'a right answer fails it less than once in 1,000,000 runs'."""
        return f"a right answer fails it by the luck of its draws less than once in {round(1 / self.total):,} runs"


def ks_epsilon(n: int, alpha: float) -> float:
    """The KS distance n draws of the law itself exceed with probability at most alpha (DKW, Massart)."""
    return math.sqrt(math.log(2 / alpha) / (2 * n))


def edge_share(n: int, alpha: float) -> float:
    """The share delta of the law's probability at one end that n draws all miss with probability alpha/2:
    (1 - delta)^n = alpha / 2."""
    return 1 - math.exp(math.log(alpha / 2) / n)


@dataclass(frozen=True)
class Law:
    """A wait drawn uniformly on [low, high], then raised to `floor` when below it (floor <= low: none)."""
    low: float
    high: float
    floor: float = -math.inf

    @classmethod
    def uniform(cls, low: float, high: float) -> "Law":
        return cls(float(low), float(high))

    def floored(self, floor: float | None) -> "Law":
        return self if floor is None else Law(self.low, self.high, float(floor))

    @property
    def top(self) -> float:
        """The largest value the law gives."""
        return max(self.high, self.floor)

    @property
    def bottom(self) -> float:
        return max(self.low, self.floor)

    @property
    def fixed(self) -> bool:
        """Whether every draw is the same number (the floor is above the whole range, or the range is a point)."""
        return self.floor >= self.high or self.low == self.high

    def cdf(self, x: float) -> float:
        """P(draw <= x)."""
        low, high, floor = self.low, self.high, self.floor
        if x < low or x < floor:
            return 0.0
        if x >= high:
            return 1.0
        return (x - low) / (high - low)

    def cdf_below(self, x: float) -> float:
        """P(draw < x): differs from cdf(x) only at the floor, where the law has a point mass."""
        low, high, floor = self.low, self.high, self.floor
        if x <= low or x <= floor:
            return 0.0
        if x > high:
            return 1.0
        return (x - low) / (high - low)

    def quantile(self, p: float) -> float:
        """The smallest x with cdf(x) >= p."""
        if self.fixed:
            return self.top
        return max(self.bottom, self.low + p * (self.high - self.low))

    def pit(self, x: float, rng: random.Random) -> float:
        """The draw's place in the law, a share from 0 to 1: uniform on [0, 1] for draws of the law itself,
        whatever the law (a draw on the point mass at the floor gets a place drawn at random within it)."""
        below, upto = self.cdf_below(x), self.cdf(x)
        return below if upto == below else rng.uniform(below, upto)

    def ks_distance(self, draws: Sequence[float]) -> float:
        """sup |share of draws <= x - cdf(x)|: looked at on both sides of every distinct draw (ties counted
        together) and of the floor (the law's one jump, drawn on or not). One pass over the sorted draws."""
        ordered = sorted(draws)
        n = len(ordered)
        gap, i = 0.0, 0
        while i < n:
            x, j = ordered[i], i + 1
            while j < n and ordered[j] == x:
                j += 1
            gap = max(gap, abs(j / n - self.cdf(x)), abs(i / n - self.cdf_below(x)))
            i = j
        if self.floor > -math.inf:
            gap = max(gap, abs(bisect.bisect_left(ordered, self.floor) / n - self.cdf_below(self.floor)),
                      abs(bisect.bisect_right(ordered, self.floor) / n - self.cdf(self.floor)))
        return gap

    def problem(self, draws: Sequence[float], alpha: float, *, edges: bool = True) -> str | None:
        """Why these draws do not follow this law (each test failing a right answer with probability at most
        alpha), in the learner's terms; None if they do."""
        n = len(draws)
        low, high = min(draws), max(draws)
        if self.fixed:
            return None if low == high == self.top else (
                f"every wait should be {self.top:g} s; they went from {low:.4g} to {high:.4g} s")
        if edges:
            share = edge_share(n, alpha / 2)
            top_from = self.quantile(1 - share)
            if high < top_from:
                return (f"no wait reached the top of the range: the longest was {high:.4g} s, and {n:,} draws "
                        f"spread evenly up to {self.high:g} s go above {top_from:.4g} s all but never")
            if self.floor <= self.low and low > self.quantile(share):
                return (f"no wait came close to {self.low:g} s: the shortest was {low:.4g} s, and {n:,} draws "
                        f"spread evenly from {self.low:g} s go below {self.quantile(share):.4g} s all but never")
        distance = self.ks_distance(draws)
        if distance > ks_epsilon(n, alpha / 2 if edges else alpha):
            return (f"not spread evenly: some parts of the range get far more waits than others (the largest gap "
                    f"between the share of your waits below a point and the share expected is {distance:.0%})")
        return None

    def said(self) -> str:
        if self.fixed:
            return f"exactly {self.top:g} s"
        spread = f"spread evenly over {self.low:g} to {self.high:g} s"
        return spread if self.floor <= self.low else f"{spread}, raised to {self.floor:g} s when shorter"


def describe(values: Sequence[float]) -> str:
    return (f"{len(values):,} waits from {min(values):.3g} to {max(values):.3g} s, "
            f"mean {sum(values) / len(values):.3g} s")
