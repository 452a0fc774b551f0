"""08.plan, the missed-run policy: the learner's plan and the reference's (scheduler.plan) on the same due
slots, drawn from every list a schedule can give a tick (nothing due, one slot, two, a few, a night of
five-minute slots, two days of them; periods from a second to a day; slots in any time zone) and every
policy, the two the course knows and names a typo makes. The smallest list that shows a difference is
the example.

Free, and not compared: the order of the slots in `skip` (the tick records them all at once).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, timezone

from course.core import scheduler

from course.grading import differential as diff
from course.grading.trial import Trial, short

DEFAULT_SEED = 8
SCENARIOS = 48
DAY = datetime(2099, 3, 14, tzinfo=UTC)
PERIODS = (timedelta(minutes=5), timedelta(minutes=5), timedelta(days=1), timedelta(seconds=1), timedelta(hours=1),
           timedelta(minutes=7), timedelta(seconds=90))
ZONES = (UTC, UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-7, minutes=-30)))
UNKNOWN = ("sometimes", "", "CATCH_UP", "Skip", "catch-up", "skip ", " catch_up", "catchup", "run_all", "none")


@dataclass(frozen=True)
class Due:
    """A scenario: `count` slots `every` apart from `first`, oldest first, and the policy plan is given."""
    count: int
    policy: str
    every: timedelta = timedelta(minutes=5)
    first: datetime = DAY + timedelta(hours=2)
    zone: timezone = UTC

    def slots(self) -> list[datetime]:
        return [(self.first + k * self.every).astimezone(self.zone) for k in range(self.count)]

    def told(self) -> str:
        slots = [hhmm(s) for s in self.slots()]
        shown = ", ".join(slots) if len(slots) <= 6 else f"{', '.join(slots[:3])}, ... {slots[-1]} ({len(slots)} slots)"
        zone = "" if self.zone == UTC or not slots else f" (in UTC{self.slots()[0].strftime('%z')})"
        return f"plan([{shown}]{zone}, {self.policy!r})"

    def shrinks(self) -> Iterator["Due"]:
        for count in sorted({0, 1, 2, self.count // 2, self.count - 1}):
            if count < self.count:
                yield replace(self, count=count)
        if self.zone != UTC:
            yield replace(self, zone=UTC)
        if self.every != timedelta(minutes=5):
            yield replace(self, every=timedelta(minutes=5))


def hhmm(moment: datetime) -> str:
    utc = moment.astimezone(UTC)
    shown = moment.strftime("%H:%M") if moment.second == 0 else moment.strftime("%H:%M:%S")
    return shown if utc.date() == DAY.date() else moment.strftime("%d %b ") + shown


def families() -> list[Callable[[random.Random], Due]]:
    def policy(rng):
        return rng.choice(scheduler.POLICIES)

    def nothing(rng):  # what most ticks see
        return Due(0, policy(rng), rng.choice(PERIODS), zone=rng.choice(ZONES))

    def one(rng):  # nothing missed: the slot that just came
        return Due(1, policy(rng), rng.choice(PERIODS), zone=rng.choice(ZONES))

    def few(rng):  # a deploy: two to five slots
        return Due(rng.randint(2, 5), policy(rng), rng.choice(PERIODS), zone=rng.choice(ZONES))

    def outage(rng):  # a night of five-minute slots, or two days of them
        return Due(rng.choice([12, 96, 288, 580]), policy(rng), timedelta(minutes=5), zone=rng.choice(ZONES))

    def typo(rng):  # a policy no schedule may have
        return Due(rng.choice([0, 1, 3]), rng.choice(UNKNOWN), rng.choice(PERIODS))

    return [nothing, one, few, outage, typo]


def boundaries() -> list[Due]:
    """Tried on every run, before the drawn lists: nothing, one and two slots due with each policy, and a typo
    with nothing due."""
    return [Due(count, policy) for count in (0, 1, 2) for policy in scheduler.POLICIES] + [Due(0, "catchup")]


# -- the judge -------------------------------------------------------------------------------------------

RETURNS = "returns a Plan(run=[...], skip=[...])"
NOTHING = "nothing due: nothing to run or skip, with either policy"
ONE = "one slot due is simply run, whatever the policy"
LOST = "no slot silently lost: each due slot is either run or recorded as skipped"
CATCH_UP = "catch_up runs every missed slot, oldest first"
SKIP = "skip runs only the latest slot and records every other one"
UNKNOWN_POLICY = "an unknown policy is refused with a ValueError, not guessed"
PLAN_CHECKS = (RETURNS, NOTHING, ONE, LOST, CATCH_UP, SKIP, UNKNOWN_POLICY)


def plan_of(value) -> tuple[list, list] | None:
    """(run, skip) from a Plan, as plain lists; None when it is not one."""
    run, skip = getattr(value, "run", None), getattr(value, "skip", None)
    try:
        return list(run), list(skip)
    except TypeError:
        return None


def _times(slots: list) -> list[str]:
    return [hhmm(s) if isinstance(s, datetime) else short(s) for s in slots]


def _shown(run: list, skip: list) -> str:
    return f"run {_times(run)}, skip {_times(skip)}"


class PlanJudge:
    def __init__(self, t: Trial, plan: Callable):
        self.t, self.plan = t, plan

    def compare(self, due: Due) -> diff.Finding | None:
        done = self.t.attempt(self.plan, due.slots(), due.policy)
        if due.policy not in scheduler.POLICIES:
            return self._unknown(due, done)
        if done.error:
            return diff.Finding(self._named(due), got=f"raised {done.error}", expected=_shown(*self._reference(due)))
        ours = plan_of(done.value)
        if ours is None:
            return diff.Finding(RETURNS, got=short(done.value), expected="scheduler.Plan(run=[...], skip=[...])",
                                note="return scheduler.Plan(run=[...], skip=[...])")
        run, skip = self._reference(due)
        if ours[0] == run and sorted(ours[1]) == sorted(skip):  # the order of skip is free
            return None
        got, expected = _shown(*ours), _shown(run, skip)
        if due.count <= 1:
            return diff.Finding(self._named(due), got=got, expected=expected)
        if sorted(ours[0] + ours[1]) != sorted(due.slots()):
            both = ours[0] + ours[1]
            missing = [s for s in due.slots() if both.count(s) != 1]
            where = "in neither list" if missing and missing[0] not in both else "in the lists twice"
            note = f"{hhmm(missing[0])} is {where}" if missing else "a slot that was not due is in a list"
            return diff.Finding(LOST, got=got, expected=expected, note=note + ": each due slot goes in exactly one")
        return diff.Finding(CATCH_UP if due.policy == scheduler.CATCH_UP else SKIP, got=got, expected=expected)

    @staticmethod
    def _reference(due: Due) -> tuple[list, list]:
        decided = scheduler.plan(due.slots(), due.policy)
        return decided.run, decided.skip

    @staticmethod
    def _named(due: Due) -> str:
        return NOTHING if due.count == 0 else ONE if due.count == 1 else (
            CATCH_UP if due.policy == scheduler.CATCH_UP else SKIP)

    def _unknown(self, due: Due, done) -> diff.Finding | None:
        if "ValueError" in done.error_bases:
            return None
        got = f"raised {done.error}" if done.error else f"returned {short(done.value)}"
        return diff.Finding(UNKNOWN_POLICY, got=got, expected="raise ValueError",
                            note=("a typo in a schedule must stop the scheduler, not quietly catch up or skip: raise "
                                  "ValueError (also when nothing is due: the typo is there all the same)")
                            if not done.error else "raise ValueError: it says the value given is wrong")


def plan_check(t: Trial, plan, seed=None) -> None:
    t.seed = DEFAULT_SEED if seed is None else seed
    verdicts = diff.Verdicts(t, PLAN_CHECKS)
    diff.search(verdicts, diff.in_turn(families()), PlanJudge(t, plan).compare, seed=t.seed, count=SCENARIOS,
                first=boundaries())
    verdicts.report()
