"""Lab 10: Little's law and saturation. L from a run's timestamps, and a pool sized by Erlang C.

Both exercises are pure functions of numbers, so both checks are differential: the answer and the
reference (`rush.average_in_system`, `queueing_theory.size_pool`) get the same arguments, drawn from
everything the statement allows, and the first difference is shrunk to the smallest example and told
with the rule it breaks, found by experiment (the same call with one thing changed).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace

from course.programs import queueing_theory, rush

from course.grading import differential as diff
from course.grading.trial import Trial, short
from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask

# -- 10.in_progress ---------------------------------------------------------------------------------

IN_PROGRESS_SEED = 10
IN_PROGRESS_SCENARIOS = 120  # pure Python: milliseconds in all

IP_NUMBER = "returns the average over time: the area under the count divided by the window's width"
IP_FROM_START = "a job that arrived before the window counts only from its start"
IP_UNTIL_END = "a job still in the system at the end of the window counts until the end"
IP_OUTSIDE = "a job entirely outside the window counts nothing, whatever order the jobs come in"
IN_PROGRESS_CHECKS = (IP_NUMBER, IP_FROM_START, IP_UNTIL_END, IP_OUTSIDE)


@dataclass(frozen=True)
class Window:
    """average_in_system(jobs, start, end): the jobs as given (any order, duplicates allowed)."""
    jobs: tuple[tuple[float, float], ...]
    start: float
    end: float

    def told(self) -> str:
        shown = self.jobs if len(self.jobs) <= 12 else (*self.jobs[:12], "...")
        listed = ", ".join(p if isinstance(p, str) else f"({p[0]:g}, {p[1]:g})" for p in shown)
        more = f" ({len(self.jobs)} jobs)" if len(self.jobs) > 12 else ""
        return f"average_in_system([{listed}], {self.start:g}, {self.end:g}){more}"

    def shrinks(self) -> Iterator["Window"]:
        n = len(self.jobs)
        for keep in (n // 2, n // 4, 1):
            if 0 < keep < n:
                yield replace(self, jobs=self.jobs[:keep])
                yield replace(self, jobs=self.jobs[n - keep:])
        for i in range(n):
            if n > 1:
                yield replace(self, jobs=self.jobs[:i] + self.jobs[i + 1:])
        plain = _plainer(self)
        if plain != self:
            yield plain

    def reference(self) -> float:
        return rush.average_in_system(self.jobs, self.start, self.end)


def _plainer(w: Window) -> Window:
    """Whole seconds where that keeps every job's stay and the window's width."""
    jobs = tuple((float(round(a)), float(round(l))) for a, l in w.jobs)
    start, end = float(round(w.start)), float(round(w.end))
    if end > start and all(l >= a for a, l in jobs):
        return Window(jobs, start, end)
    return w


def _stay(rng: random.Random, lo: float, hi: float) -> tuple[float, float]:
    a = rng.choice([round(rng.uniform(lo, hi), rng.choice([0, 1, 3])), rng.uniform(lo, hi)])
    return a, a + rng.choice([0.0, round(rng.uniform(0, (hi - lo) / 2), 2), rng.expovariate(1 / 1.5)])


def _mixed(rng: random.Random) -> Window:
    start = round(rng.uniform(-5, 5), rng.choice([0, 1, 2]))
    end = start + rng.choice([0.5, 1, 2.5, 4, round(rng.uniform(0.1, 20), 2)])
    jobs = [_stay(rng, start - 6, end + 6) for _ in range(rng.randint(0, 12))]
    rng.shuffle(jobs)
    return Window(tuple(jobs), start, end)


def _edges(rng: random.Random) -> Window:
    """Stays that begin or end exactly on the window's edges, or only touch it; stays of no length."""
    start, end = float(rng.randint(-3, 3)), 0.0
    end = start + rng.choice([1.0, 2.0, 3.5])
    points = [start, end, start - 1, end + 1, (start + end) / 2]
    jobs = []
    for _ in range(rng.randint(1, 8)):
        a, l = sorted(rng.sample(points, 2)) if rng.random() < 0.8 else (start, start)
        jobs.append((a, l))
    rng.shuffle(jobs)
    return Window(tuple(jobs), start, end)


def _unsorted_rush(rng: random.Random) -> Window:
    """A dinner rush's stays, in the order they finished (not arrived), with a window on its plateau."""
    jobs = rush_stays(rng.randrange(10**6), rate=rng.choice([3.0, 11.0]), seconds=rng.choice([2.0, 6.0]))
    if rng.random() < 0.5:
        jobs.sort(key=lambda pair: pair[1])
    else:
        rng.shuffle(jobs)
    start = round(rng.uniform(0, 2), 1)
    return Window(tuple(jobs), start, start + rng.choice([1.5, 3.0, 4.4]))


def _far_away(rng: random.Random) -> Window:
    """Times far from zero (epoch seconds) and jobs entirely before and after the window."""
    base = 1_764_000_000.0 + rng.randrange(10**5)
    start, end = base + 10, base + 10 + rng.choice([1.0, 60.0, 0.25])
    jobs = [(base, base + 5), (end + 1, end + 9), (base + 9.5, end + 0.5), (start + 0.1, end - 0.1)]
    rng.shuffle(jobs)
    return Window(tuple(jobs[:rng.randint(1, 4)]), start, end)


IN_PROGRESS_FAMILIES = (_mixed, _edges, _unsorted_rush, _far_away)


def rush_stays(seed: int, rate: float = 11.0, seconds: float = 6.0, service: float = 1.5) -> list[tuple[float, float]]:
    """A dinner rush's (arrived, left) pairs: Poisson arrivals, each job 1.5 s plus a little jitter."""
    rng = random.Random(seed)
    jobs, now = [], rng.expovariate(rate)
    while now < seconds:
        jobs.append((now, now + service + rng.uniform(0.0, 0.1)))
        now += rng.expovariate(rate)
    return jobs


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _same(got, expected: float) -> bool:
    return _is_number(got) and math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-9)


def _in_progress_cause(t: Trial, answer, w: Window) -> str:
    """The rule a difference breaks, by experiment: the same call with the jobs outside the window left
    out, then with the stays cut at the start, then at the end. The first change that makes the answer
    right names the rule."""
    def right_on(jobs) -> bool:
        changed = replace(w, jobs=tuple(jobs))
        done = t.attempt(answer, list(changed.jobs), changed.start, changed.end)
        return done.error is None and _same(done.value, changed.reference())

    inside = [(a, l) for a, l in w.jobs if l > w.start and a < w.end]
    if len(inside) < len(w.jobs) and right_on(inside):
        return IP_OUTSIDE
    from_start = [(max(a, w.start), l) for a, l in inside]
    if right_on(from_start):
        return IP_FROM_START
    if right_on([(a, min(l, w.end)) for a, l in from_start]):
        return IP_UNTIL_END
    return IP_NUMBER


_IP_NOTES = {
    IP_NUMBER: "the average number in the system over time: add up each job's time inside [start, end] and divide "
               "by the window's width (end - start), not by the number of jobs; count exactly, not by sampling",
    IP_FROM_START: "a job that arrived before `start` was in the system from `start` on: max(arrived, start)",
    IP_UNTIL_END: "a job still there at `end` counts until `end`: min(left, end)",
    IP_OUTSIDE: "a job that left before `start` or arrived after `end` adds nothing (max(0, ...)); the jobs may "
                "come in any order, so look at every one",
}


@exercise_check("10.in_progress")
def in_progress(t: Trial, average_in_system, seed=None):
    t.seed = IN_PROGRESS_SEED if seed is None else seed
    verdicts = diff.Verdicts(t, IN_PROGRESS_CHECKS)

    def compare(w: Window) -> diff.Finding | None:
        done = t.attempt(average_in_system, list(w.jobs), w.start, w.end)
        expected = w.reference()
        if done.error is None and _same(done.value, expected):
            return None
        got = f"your code raised {done.error}" if done.error else short(done.value)
        if done.error is None and not _is_number(done.value):
            return diff.Finding(IP_NUMBER, got=got, expected=f"{expected:.6g} (a number)",
                                note="return one number, the average: a float")
        cause = _in_progress_cause(t, average_in_system, w)
        return diff.Finding(cause, got=got, expected=f"{expected:.6g}", note=_IP_NOTES[cause])

    diff.search(verdicts, diff.in_turn(IN_PROGRESS_FAMILIES), compare, seed=t.seed, count=IN_PROGRESS_SCENARIOS)
    verdicts.report()


# -- 10.pool ---------------------------------------------------------------------------------------------

POOL_SEED = 10
POOL_SCENARIOS = 90
POOL_HANG_S = 10.0  # one call: the reference answers in microseconds; this only bounds a loop that never ends

P_FEWEST = "the fewest workers whose Erlang C mean wait is at most the target (not a percentile, not a rule of thumb)"
P_LOAD = "more workers than λ × S, always (at λ × S or fewer, ρ ≥ 1: the queue never settles)"
P_EXACT = "a target met exactly counts as met"
P_WHOLE = "a whole number of workers (an int), one for hardly any load"
P_RETURNS = "returns for every load and target"
POOL_CHECKS = (P_RETURNS, P_FEWEST, P_LOAD, P_EXACT, P_WHOLE)


@dataclass(frozen=True)
class Pool:
    """workers_for(rate, service, target); with `exact_at`, the target is exactly the mean wait of that
    many workers (the boundary the statement names)."""
    rate: float
    service: float
    target: float
    exact_at: int | None = None

    def told(self) -> str:
        load = self.rate * self.service
        said = f"workers_for({self.rate:g}, {self.service:g}, {self.target!r})  (λ × S = {load:g}"
        return said + (f"; the target is exactly the mean wait of {self.exact_at} workers)" if self.exact_at else ")")

    def shrinks(self) -> Iterator["Pool"]:
        for rate, service in ((round(self.rate), self.service), (self.rate, round(self.service, 1)),
                              (round(self.rate, 1), self.service)):
            if rate > 0 and service > 0 and (rate, service) != (self.rate, self.service):
                yield _pool(rate, service, self.target, self.exact_at)
        if self.exact_at is None:
            plain = float(f"{self.target:.1g}")
            if plain != self.target:
                yield replace(self, target=plain)

    def reference(self) -> int:
        return queueing_theory.size_pool(self.rate, self.service, self.target)


def _pool(rate: float, service: float, target: float, exact_at: int | None = None) -> Pool:
    if exact_at is not None:
        exact_at = max(exact_at, math.floor(rate * service) + 1)
        target = queueing_theory.erlang_c(rate, service, exact_at).mean_wait
    return Pool(rate, service, target, exact_at)


def _target(rng: random.Random, service: float) -> float:
    return rng.choice([10 ** rng.uniform(-4, 3), service * rng.choice([0.01, 0.1, 0.5, 1, 2]), 1.0, 0.5, 1e9])


def _any_load(rng: random.Random) -> Pool:
    service = rng.choice([0.05, 0.3, 1.5, 4.0, round(rng.uniform(0.01, 10), 2)])
    rate = round(10 ** rng.uniform(-2, 2.5), rng.choice([0, 1, 3]))
    return _pool(max(rate, 0.01), service, _target(rng, service))


def _whole_load(rng: random.Random) -> Pool:
    """λ × S a whole number, exactly (binary fractions): ρ = 1 at that many workers."""
    service = rng.choice([0.25, 0.5, 1.0, 2.0, 4.0])
    return _pool(rng.randint(1, 60) / service, service, rng.choice([1e9, 10.0, _target(rng, service)]))


def _rounds_up(rng: random.Random) -> Pool:
    """λ × S just past a half (2.6, 40.9): a pool of round(λ S) may already do."""
    service = rng.choice([1.0, 2.0, 4.0, 0.5])
    load = rng.randint(0, 50) + rng.choice([0.5, 0.6, 0.75, 0.9, 0.99])
    return _pool(load / service, service, rng.choice([1e9, 100.0, service]))


def _exactly(rng: random.Random) -> Pool:
    service = rng.choice([0.5, 1.5, 4.0])
    rate = rng.choice([0.3, 2.0, 11.0, 40.0])
    fewest = math.floor(rate * service) + 1
    return _pool(rate, service, 0.0, fewest + rng.randint(0, 4))


def _big_or_tiny(rng: random.Random) -> Pool:
    if rng.random() < 0.5:
        return _pool(rng.choice([300.0, 1200.0, 5000.0]), rng.choice([0.1, 0.5, 1.0]), rng.choice([0.001, 0.01]))
    return _pool(rng.choice([0.001, 0.01, 0.1]), rng.choice([0.01, 0.5, 1.0]), rng.choice([1e-6, 0.01, 1.0, 1e9]))


POOL_FAMILIES = (_any_load, _whole_load, _rounds_up, _exactly, _big_or_tiny)


def _is_whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _wait(rate, service, servers) -> str:
    if not _is_whole(servers) or servers < 1:
        return "not a number of workers"
    if rate * service >= servers:
        return "no steady state (ρ ≥ 1: the queue grows forever)"
    return f"mean wait {queueing_theory.erlang_c(rate, service, servers).mean_wait:.4g} s"


@exercise_check("10.pool")
def pool(t: Trial, workers_for, seed=None):
    t.seed = POOL_SEED if seed is None else seed
    verdicts = diff.Verdicts(t, POOL_CHECKS)
    # A rule passes only once the answer has shown it (a stub returning None used to pass four of five): a
    # pool of the reference's size, an int above λ × S, shows every rule, and on a target met exactly, that one.
    shown: set[str] = set()

    def compare(p: Pool) -> diff.Finding | None:
        done = t.attempt_within(POOL_HANG_S, workers_for, p.rate, p.service, p.target, during=P_RETURNS,
                                example=p.told())
        expected = p.reference()
        got = done.value
        if done.error is None and _is_whole(got) and got == expected:
            for check in (P_RETURNS, P_FEWEST, P_LOAD, P_WHOLE) + ((P_EXACT,) if p.exact_at is not None else ()):
                shown.add(check)
            return None
        around = (f"with {expected}: {_wait(p.rate, p.service, expected)}; with {expected - 1}: "
                  f"{_wait(p.rate, p.service, expected - 1)}; the target is {p.target:.6g} s")
        if done.error is not None:
            load_whole = p.rate * p.service == math.floor(p.rate * p.service)
            return diff.Finding(P_LOAD if load_whole else P_FEWEST, got=f"your code raised {done.error}",
                                expected=f"{expected} workers", note=around + (
                                    "; start above λ × S: exactly λ × S workers is ρ = 1, which erlang_c refuses"
                                    if load_whole else ""))
        if not _is_whole(got) or got < 1:
            return diff.Finding(P_WHOLE, got=short(got), expected=f"{expected} (an int)",
                                note="a number of workers is a whole number: return an int (at least 1)")
        if got <= p.rate * p.service:
            return diff.Finding(P_LOAD, got=str(got), expected=f"{expected} workers", note=f"with {got}: "
                                f"{_wait(p.rate, p.service, got)}; {around}")
        if p.exact_at is not None and got == expected + 1:
            nudged = t.attempt_within(POOL_HANG_S, workers_for, p.rate, p.service, p.target * (1 + 1e-9),
                                      during=P_RETURNS, example=p.told())
            if nudged.error is None and nudged.value == expected:
                return diff.Finding(P_EXACT, got=str(got), expected=f"{expected} workers", note=f"{around}: "
                                    "a mean wait equal to the target meets it (<=, not <)")
        return diff.Finding(P_FEWEST, got=str(got), expected=f"{expected} workers",
                            note=f"with {got}: {_wait(p.rate, p.service, got)}; {around}")

    diff.search(verdicts, diff.in_turn(POOL_FAMILIES), compare, seed=t.seed, count=POOL_SCENARIOS)
    for check in POOL_CHECKS:
        if check not in shown:
            verdicts.not_shown(check, "not judged: your answer has not yet returned the pool size this rule is about "
                                      "in any scenario")
    verdicts.report()


@exercise_check("10.predict_rush")
def predict_rush_check(t: Trial, predict_rush):
    ask(t, "predict_rush", predict_rush, "a",
        "how many receipt jobs are in the system on the plateau, and L against λ × W over the run",
        "look at what the run measured: the plateau's average, and L beside λ × W")


@exercise_check("10.predict_slow")
def predict_slow_check(t: Trial, predict_slow):
    ask(t, "predict_slow", predict_slow, "b",
        "how many receipt jobs are in the system on the plateau at 4 s an email",
        "look at what the run measured: the plateau's average at 4 s an email")


@exercise_check("10.predict_45_workers")
def predict_45_workers_check(t: Trial, predict_45_workers):
    ask(t, "predict_45_workers", predict_45_workers, "b",
        "how much longer 45 workers make receipts wait than 50",
        "look at the table: the mean wait at 45 workers beside the one at 50")


@exercise_check("10.quiz")
def quiz(t: Trial, q1, q2, q3, q4, q5, q6):
    ask(t, "q1", q1, "b", "receipts in progress at 11 orders/s and 1.5 s each", "L = λ × W")
    ask(t, "q2", q2, "c", "44 workers for 11 jobs/s of 4 s each", "what is ρ, and what happens to a queue at ρ = 1?")
    ask(t, "q3", q3, "c", "one worker going from 50 % to 90 % busy",
        "for one worker the mean wait is ρ / (1 - ρ) service times")
    ask(t, "q4", q4, "b", "when λ × W over a window equals the jobs counted in it",
        "look at the three windows of section 2: where did whole stays and the count agree?")
    ask(t, "q5", q5, "c", "a constant service time against Erlang C's exponential one",
        "look at section 3's reconciliation: what did M/D/50 wait, beside M/M/50?")
    ask(t, "q6", q6, "a", "a backlog that grows while the provider is slow, then drains",
        "it grows at λ minus the slow capacity and drains at the fast capacity minus λ")
