"""13.choose, differential: the learner's choose_queue against the rules' own, on decisions drawn from
everything the statement allows.

The generator varies every dimension the rules name: the Postgres queue's drain rate (round, odd,
fractional: "the figure is yours"), the peak exactly on half of it and an eighth, a quarter, a half,
one job/s either side (so a half rounded, floored or truncated shows), far below and far above; born in a
transaction or not; one team or several. The material's cases are tried first, on every run. A
difference is shrunk to the plainest call that still shows it, and named by the rule it breaks, found by
experiment: the answer is asked again with the peak near nothing, or with one team, and whichever change
makes it agree with the rules is the cause.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, replace

from course.grading import differential as diff
from course.grading.checks import exercise_check
from course.grading.trial import Trial

DEFAULT_SEED = 13
SCENARIOS = 120  # pure calls: a few milliseconds in all

OVER_HALF = "a broker when the peak is over half of what your Postgres queue drains (exactly half is not over it)"
MANY_TEAMS = "a broker when more than one team must read every event"
OTHERWISE = "otherwise \"postgres\""
OUTBOX = "with a broker, \"broker + outbox\" for jobs born in a database transaction, \"broker\" for others"
CHECKS = (OVER_HALF, MANY_TEAMS, OTHERWISE, OUTBOX)
ANSWERS = ("postgres", "broker", "broker + outbox")


def reference(peak: float, drain: float, born: bool, teams: int) -> str:
    """The statement's three rules, as the solution writes them."""
    if not (peak > drain / 2 or teams > 1):
        return "postgres"
    return "broker + outbox" if born else "broker"


def normal(answer) -> str:
    """The contract's normal form: the three strings, read without fuss about case and spaces."""
    return " ".join(str(answer).lower().split()) if isinstance(answer, str) else repr(answer)


def number(x: float) -> str:
    return str(int(x)) if float(x) == int(x) else str(float(x))


@dataclass(frozen=True)
class Decision:
    """One call of choose_queue, and what it stands for in the learner's words (the material's cases)."""
    peak: float
    drain: float
    born: bool
    teams: int
    what: str = ""

    def call(self) -> str:
        return f"choose_queue({number(self.peak)}, {number(self.drain)}, {self.born}, {self.teams})"

    def told(self) -> str:
        half = "exactly half" if self.peak * 2 == self.drain else "over half" if self.peak * 2 > self.drain else "under half"
        return (f"{self.call()}: {self.what + '; ' if self.what else ''}a peak of {number(self.peak)} jobs/s is "
                f"{half} of {number(self.drain)}, {self.teams} team(s), "
                f"{'born' if self.born else 'not born'} in a database transaction")

    def shrinks(self) -> Iterator["Decision"]:
        plain = replace(self, what="")
        if self.what:
            yield plain
        if self.teams > 2:
            yield replace(plain, teams=2)
        if self.teams > 1:
            yield replace(plain, teams=1)
        if self.born:
            yield replace(plain, born=False)
        for drain, peak in ((8000, self.peak * 8000 / self.drain), (round(self.drain), None)):
            if drain != self.drain and (peak is None or peak == int(peak)):
                yield replace(plain, drain=drain, peak=self.peak if peak is None else peak)


MATERIAL = (
    Decision(11, 8000, True, 1, "Tiffin receipts: 11 orders/s at the dinner rush, enqueued with the order"),
    Decision(40, 8000, False, 1, "StayHub's newsletter: 40 jobs/s, enqueued by a script"),
    Decision(11, 8000, True, 3, "Tiffin's order events, read by billing, analytics and search"),
    Decision(30_000, 8000, False, 1, "a clickstream from the browsers' API, one team's workers"),
    Decision(4000, 8000, True, 1, "exactly half, with orders"),
    Decision(4001, 8000, True, 1, "just over half, with orders"),
    Decision(3000, 5000, True, 1, "a smaller machine"),
    Decision(20, 8000, False, 2, "payment webhooks that two teams each must see"),
)

STEPS = (0, 0, 0.125, 0.25, 0.25, 0.5, 1, 2)  # eighths: exact in binary, so "exactly half" is exactly half


def _drain(rng: random.Random) -> float:
    kind = rng.randrange(4)
    if kind == 0:
        return rng.choice((8000, 5000, 2000, 40, 10))
    if kind == 1:
        return 2 * rng.randrange(1, 6000) + 1  # odd: its half is a half-integer
    if kind == 2:
        return rng.randrange(1, 12_000) + rng.choice((0.25, 0.5, 0.75))
    return rng.randrange(2, 200)


def near_half(rng: random.Random) -> Decision:
    drain = _drain(rng)
    if rng.random() < 0.5:  # odd: its half is a half-integer, which rounding and // move
        drain = 2 * rng.randrange(1, 6000) + 1
    peak = drain / 2 + rng.choice((-1, 1)) * rng.choice(STEPS)
    return Decision(max(peak, 0.125), drain, rng.random() < 0.5, 1)  # one team: only the peak decides


def anywhere(rng: random.Random) -> Decision:
    drain = _drain(rng)
    peak = rng.choice((0.5, 1, 3, 11, 40)) if rng.random() < 0.3 else round(drain * rng.uniform(0.01, 3) * 8) / 8
    return Decision(max(peak, 0.125), drain, rng.random() < 0.5, rng.choice((1, 1, 2, 3, 5)))


def many_teams(rng: random.Random) -> Decision:
    drain = _drain(rng)
    return Decision(max(round(drain * rng.uniform(0.01, 0.5) * 8) / 8, 0.125), drain, rng.random() < 0.5,
                    rng.randrange(2, 7))


FAMILIES = (near_half, anywhere, near_half, many_teams)


def compare(t: Trial, choose_queue, scenario: Decision) -> diff.Finding | None:
    def ask(d: Decision) -> str:
        done = t.attempt(choose_queue, d.peak, d.drain, d.born, d.teams)
        return normal(done.value) if done.error is None else f"raised {done.error}"

    got, expected = ask(scenario), reference(scenario.peak, scenario.drain, scenario.born, scenario.teams)
    if got == expected:
        return None
    finding = dict(got=got, expected=expected)
    wants_broker, says_broker = expected != "postgres", got.startswith("broker")
    if wants_broker and says_broker:
        return diff.Finding(OUTBOX, **finding, note="with a broker, the answer depends only on where the job is "
                            "born: exactly \"broker + outbox\" when born in a database transaction, else \"broker\"")
    if not wants_broker and not says_broker:
        return diff.Finding(OTHERWISE, **finding, note="without a need for a broker, exactly \"postgres\"")
    over_half = scenario.peak > scenario.drain / 2
    if wants_broker:  # a broker was needed; which need did the answer miss?
        if over_half:
            return diff.Finding(OVER_HALF, **finding, note=f"half of {number(scenario.drain)} is "
                                f"{number(scenario.drain / 2)}: compare peak_jobs_per_s > postgres_jobs_per_s / 2, "
                                "with the figures as given (no rounding, no integer division)")
        return diff.Finding(MANY_TEAMS, **finding, note="more than one team reading every event needs a broker, "
                            "whatever the peak")
    # Postgres was right: find which need the answer saw that is not there, by asking again without it.
    quiet = replace(scenario, peak=min(scenario.peak, 0.125))
    if ask(quiet) == reference(quiet.peak, quiet.drain, quiet.born, quiet.teams):
        return diff.Finding(OVER_HALF, **finding, note=f"half of {number(scenario.drain)} is "
                            f"{number(scenario.drain / 2)}, and {number(scenario.peak)} is not over it: compare "
                            "peak_jobs_per_s > postgres_jobs_per_s / 2, with the figures as given (exactly half "
                            "is not over it; no rounding, no integer division)")
    return diff.Finding(OTHERWISE, **finding, note="no need forces a broker here, even with a peak near nothing: "
                        "one team reads the events (one is not more than one), so \"postgres\"")


@exercise_check("13.choose")
def choose(t: Trial, choose_queue):
    t.seed = DEFAULT_SEED if t.seed is None else t.seed
    verdicts = diff.Verdicts(t, CHECKS)
    diff.search(verdicts, diff.in_turn(FAMILIES), lambda s: compare(t, choose_queue, s), seed=t.seed,
                count=SCENARIOS, first=MATERIAL)
    verdicts.report()
