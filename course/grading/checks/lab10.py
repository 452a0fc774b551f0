"""Lab 10: Little's law and saturation. L from a run's timestamps, and a pool sized by Erlang C.

Both exercises are pure functions of numbers, so the checks try small cases whose answers can be
worked out by hand first (the smallest failing example is the first one that fails), then the cases
from Tiffin's dinner rush.
"""

import math
import random

from course.programs import queueing_theory

from course.grading.trial import Trial
from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask

# (what it shows, jobs as (arrived, left), window start, window end, expected average)
IN_SYSTEM_CASES = [
    ("no jobs: nobody in the system", [], 0.0, 10.0, 0.0),
    ("one job there the whole window", [(0.0, 10.0)], 0.0, 10.0, 1.0),
    ("one job there for 2 s of a 10 s window: 0.2 on average, not 1", [(2.0, 4.0)], 0.0, 10.0, 0.2),
    ("two jobs overlapping for 1 s", [(0.0, 2.0), (1.0, 3.0)], 0.0, 4.0, 1.0),
    ("a job that arrived before the window counts only from its start", [(-5.0, 1.0)], 0.0, 2.0, 0.5),
    ("a job still in the system at the end of the window counts until the end", [(1.0, 9.0)], 0.0, 2.0, 0.5),
    ("a job entirely after the window does not count", [(3.0, 4.0)], 0.0, 2.0, 0.0),
]


def _rush(seed: int = 11, rate: float = 11.0, seconds: float = 6.0, service: float = 1.5):
    """A dinner rush's (arrived, left) pairs: Poisson arrivals, each job 1.5 s plus a little jitter."""
    rng = random.Random(seed)
    jobs, now = [], rng.expovariate(rate)
    while now < seconds:
        jobs.append((now, now + service + rng.uniform(0.0, 0.1)))
        now += rng.expovariate(rate)
    return jobs


def _show(jobs) -> str:
    return "[" + ", ".join(f"({a:g}, {b:g})" for a, b in jobs) + "]"


@exercise_check("10.in_progress")
def in_progress(t: Trial, average_in_system):
    for what, jobs, start, end, expected in IN_SYSTEM_CASES:
        example = f"average_in_system({_show(jobs)}, {start:g}, {end:g})"
        got = t.call(average_in_system, list(jobs), start, end, during=example)
        ok = isinstance(got, (int, float)) and not isinstance(got, bool) and math.isclose(got, expected, abs_tol=1e-9)
        if not t.expect(what, got=got, expected=expected, ok=ok, example=example):
            return

    # Over a window that holds every job's whole stay, the average is Little's λ × W exactly.
    jobs = _rush()
    end = max(left for _, left in jobs)
    expected = len(jobs) / end * (sum(left - arrived for arrived, left in jobs) / len(jobs))
    got = t.call(average_in_system, list(jobs), 0.0, end, during=f"average_in_system(<a rush of {len(jobs)} "
                 f"jobs>, 0, {end:.2f})")
    t.expect(f"over a whole rush ({len(jobs)} jobs, empty to empty) it equals λ × W", got=got, expected=expected,
             ok=isinstance(got, (int, float)) and math.isclose(got, expected, rel_tol=1e-9),
             example=f"{len(jobs)} jobs arriving at 11/s for 6 s, each 1.5–1.6 s, window [0, {end:.2f}]",
             note="λ = jobs / window width, W = mean time in the system")
    # And on the rush's steady part, where some stays are cut by both ends of the window.
    plateau = (1.6, 6.0)
    expected = sum(max(0.0, min(left, plateau[1]) - max(arrived, plateau[0])) for arrived, left in jobs) / 4.4
    got = t.call(average_in_system, list(jobs), *plateau, during="average_in_system(<the same rush>, 1.6, 6.0)")
    t.expect("on the rush's steady part, where stays are cut at both ends of the window", got=got,
             expected=expected,
             ok=isinstance(got, (int, float)) and math.isclose(got, expected, rel_tol=1e-9),
             example="the same rush, window [1.6, 6.0]")


# (what it shows, arrival rate, service time, target mean wait), simplest first
POOL_CASES = [
    ("hardly any load: one worker", 0.1, 1.0, 1.0),
    ("even a huge target needs more than λ × S = 2 workers", 2.0, 1.0, 1e9),
    ("Tiffin's dinner rush, mean wait at most 0.5 s", 11.0, 1.5, 0.5),
    ("the slow provider, mean wait at most 1 s", 11.0, 4.0, 1.0),
    ("a target met exactly counts as met", 11.0, 4.0, queueing_theory.erlang_c(11.0, 4.0, 48).mean_wait),
    ("StayHub's 40 jobs/s of 0.05 s, mean wait at most 10 ms", 40.0, 0.05, 0.01),
    ("hundreds of workers", 300.0, 1.0, 0.001),
]


def _wait(rate, service, servers) -> str:
    if isinstance(servers, bool) or not isinstance(servers, int) or servers < 1:
        return "not a number of workers"
    if rate * service >= servers:
        return "no steady state (ρ ≥ 1: the queue grows forever)"
    return f"mean wait {queueing_theory.erlang_c(rate, service, servers).mean_wait:.4g} s"


@exercise_check("10.pool")
def pool(t: Trial, workers_for):
    for what, rate, service, target in POOL_CASES:
        example = f"workers_for({rate:g}, {service:g}, {target:.6g})"
        got = t.call(workers_for, rate, service, target, during=example)
        expected = queueing_theory.size_pool(rate, service, target)
        is_whole = isinstance(got, int) and not isinstance(got, bool)
        t.expect(f"{what}: {expected} workers", got=got, expected=expected, ok=is_whole and got == expected,
                 example=example,
                 note=f"with {got!r}: {_wait(rate, service, got)}; with {expected}: {_wait(rate, service, expected)}; "
                      f"with {expected - 1}: {_wait(rate, service, expected - 1)}; the target is {target:.4g} s")


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
