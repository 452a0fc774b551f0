"""09.route: the learner's routing beside the reference's on every job type StayHub has, types added to IMPACT on
each side of the 120 s line, types nobody classified, then another session enqueueing between the answer's
statements."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import psycopg

from course.core import queue
from course.programs import newsletter as newsletter_module
from course.programs.newsletter import BULK, IMPACT, URGENT, URGENT_WITHIN_S, Impact

from course.grading import differential as diff
from course.grading import interleave
from course.grading.checks import exercise_check, shared
from course.grading.snapshot import Reader, State
from course.grading.trial import Attempt, Trial, short
from course.grading.checks.lab09.jobs import DEFAULT_SEED, JOB_COLUMNS, _install_jobs, _new_jobs, _kept, _columns, _is_id


@dataclass(frozen=True)
class Routing:
    """A scenario: IMPACT as StayHub has it plus `changes` (types added or reclassified, late after so many
    seconds), other jobs waiting, and enqueue_job(conn, job_type, payload)."""
    job_type: str
    payload: Any = None
    changes: tuple[tuple[str, float], ...] = ()
    others: int = 0

    def impact(self) -> dict[str, Impact]:
        table = dict(IMPACT)
        table.update({name: Impact("a scenario of the check", late) for name, late in self.changes})
        return table

    def told(self) -> str:
        changed = [f"IMPACT[{name!r}] late_after_s={late:g}" for name, late in self.changes]
        others = [f"{self.others} other job(s) waiting"] if self.others else []
        return "; ".join(changed + others + [f"enqueue_job(conn, {self.job_type!r}, {short(self.payload)})"])

    def shrinks(self) -> Iterator["Routing"]:
        if self.others:
            yield replace(self, others=0)
        if self.payload != {"booking_id": 981}:
            yield replace(self, payload={"booking_id": 981})
        for i, (name, _) in enumerate(self.changes):
            if name != self.job_type:
                yield replace(self, changes=self.changes[:i] + self.changes[i + 1:])


PAYLOADS = ({"booking_id": 981}, {"booking_id": 981}, {}, {"booking_id": 981, "lines": [{"sku": "R-1", "n": 2}]},
            {"note": "naïve café ☃", "quote": 'it\'s "fine"'}, {"big": "x" * 3000}, {"deep": {"a": [None, True, 1.5]}})
LATES = (0, 1, 59, 60, 119, 119.5, 120, 120.0, 120.5, 121, 3600, 86_400, 7 * 86_400)
NEW_TYPES = ("send_checkin_code", "export_tax_report", "notify_housekeeping", "refund_deposit")
UNKNOWN_TYPES = ("send_birthday_coupon", "SEND_CONFIRMATION_EMAIL", "send_confirmation", "newsletter")


def route_families() -> list[Callable[[random.Random], Routing]]:
    def known(rng):  # every type StayHub has
        return Routing(rng.choice(sorted(IMPACT)), rng.choice(PAYLOADS), others=rng.choice([0, 0, 3, 6]))

    def added(rng):  # a type added to IMPACT for this scenario, late after any number of seconds
        name = rng.choice(NEW_TYPES)
        return Routing(name, rng.choice(PAYLOADS), ((name, rng.choice(LATES)),), rng.choice([0, 2]))

    def reclassified(rng):  # a type StayHub has, whose impact changed: its name says nothing now
        name = rng.choice(sorted(IMPACT))
        late = rng.choice([30, 120, 121, 86_400]) if IMPACT[name].late_after_s > URGENT_WITHIN_S else rng.choice(
            [121, 3600, 86_400, 120])
        return Routing(name, rng.choice(PAYLOADS), ((name, late),))

    def unknown(rng):  # nobody has said who waits for it
        return Routing(rng.choice(UNKNOWN_TYPES), rng.choice(PAYLOADS), others=rng.choice([0, 3]))

    return [known, added, reclassified, unknown]


def route_boundaries() -> list[Routing]:
    """Tried on every run, before the drawn ones: each type StayHub has, a new type on each side of the
    threshold (and exactly on it), a type nobody classified."""
    return ([Routing(name, {"booking_id": 981}) for name in sorted(IMPACT)]
            + [Routing("send_checkin_code", {"booking_id": 981}, (("send_checkin_code", late),))
               for late in (0, 119.5, URGENT_WITHIN_S, 120.5, 121)]
            + [Routing("send_birthday_coupon", {"guest_id": 7})])


BY_IMPACT = "each job type goes to the queue its impact calls for"
ADDED = "a type added to IMPACT later is routed by its impact"
REFUSED = "a job type missing from IMPACT is refused (ValueError or KeyError) and nothing is stored"
AS_GIVEN = "the job's type and payload are stored as given, with queue.enqueue"
RETURN_ID = "returns the id of the job it stored (an int), for every job type"
ROUTE_CHECKS = (BY_IMPACT, ADDED, REFUSED, AS_GIVEN, RETURN_ID)
ROUTE_SCENARIOS = 24
NOT_SHOWN = ("not judged: no scenario got as far as this rule (each stopped at an earlier one), so your answer has "
             "not shown it yet")


def _queue_for(late: float) -> str:
    return URGENT if late <= URGENT_WITHIN_S else BULK


class RouteJudge:
    def __init__(self, t: Trial, box, enqueue_job: Callable):
        self.t, self.box, self.enqueue_job = t, box, enqueue_job
        self.shown: set[str] = set()  # the rules some scenario showed the answer keeping (a job stored, routed...)
        self.reader = Reader.of(box.conn, only=("jobs",))
        self._read: dict[int, State] = {}

    def learner(self, s: Routing) -> Callable[[psycopg.Connection], Attempt]:
        def run(conn):
            with impact_as(s, self.enqueue_job):
                return self.t.attempt(self.enqueue_job, conn, s.job_type, _copied(s.payload))
        return run

    @staticmethod
    def reference(s: Routing) -> Callable[[psycopg.Connection], Attempt]:
        def run(conn):
            try:
                impact = s.impact()[s.job_type]
                return Attempt(value=queue.enqueue(conn, s.job_type, _copied(s.payload),
                                                   queue=_queue_for(impact.late_after_s)))
            except Exception as error:  # noqa: BLE001 (KeyError: the refusal)
                return Attempt(error=f"{type(error).__name__}: {error}", error_type=type(error).__name__,
                               error_bases=tuple(k.__name__ for k in type(error).__mro__))
        return run

    def compare(self, s: Routing) -> diff.Finding | None:
        before = self._before(s.others)
        done, state = diff.in_rollback(self.box.conn, self.reader, _install_jobs(s.others), self.learner(s))
        theirs, their_state = diff.in_rollback(self.box.conn, self.reader, _install_jobs(s.others), self.reference(s))
        if theirs.error:  # a type nobody classified: refused
            return self._refused(s, done, state)
        new, (expected,) = _new_jobs(state), _new_jobs(their_state).values()
        check = ADDED if any(name == s.job_type for name, _ in s.changes) else BY_IMPACT
        if done.error:  # a type in IMPACT refused: one added or reclassified for the scenario is the rule's
            refused = {"KeyError", "ValueError"} & set(done.error_bases)
            # Only a refusal says the answer judged the type unknown; any other exception is its own cause.
            note = ("IMPACT is read when the job is enqueued: a type added to it since is one StayHub has"
                    if check == ADDED and refused else
                    f"your enqueue_job raised {done.error_type} for a job type StayHub has" if not refused else None)
            return diff.Finding(check if check == ADDED else RETURN_ID, got=f"raised {done.error}",
                                expected=f"a job on {expected['queue']!r}", note=note)
        if len(new) != 1 or not _kept(state, before):
            return diff.Finding(AS_GIVEN, got=f"{len(new)} new job(s)" + ("" if _kept(state, before) else
                                                                            ", and the jobs already there changed"),
                                expected="one new job, and the others as they were",
                                note="store the job with one queue.enqueue(conn, job_type, payload, queue=...)")
        (job_id, row), = new.items()
        if row["queue"] != expected["queue"]:
            late = s.impact()[s.job_type].late_after_s
            exactly = (f" (exactly {URGENT_WITHIN_S} s is at most {URGENT_WITHIN_S} s: <=, not <)"
                       if late == URGENT_WITHIN_S else "")
            return diff.Finding(check, got=f"on {row['queue']!r}", expected=f"on {expected['queue']!r}",
                                note=f"{s.job_type} may be {late:g} s late: at most {URGENT_WITHIN_S} s goes to "
                                     f"{URGENT!r}, anything longer to {BULK!r}{exactly}. Read late_after_s from "
                                     "IMPACT, never the type's name: a list of names goes stale with the next job type")
        self.shown.add(check)  # a job of this kind stored, on the queue its impact calls for
        if _columns(row) != _columns(expected):
            name = next(n for n, mine, want in zip(JOB_COLUMNS, _columns(row), _columns(expected)) if mine != want)
            return diff.Finding(AS_GIVEN, got=f"{name} {short(row[name])}", expected=f"{name} {short(expected[name])}",
                                note="queue.enqueue(conn, job_type, payload, queue=...): the type and payload as "
                                     "given, nothing else")
        self.shown.add(AS_GIVEN)
        if not (_is_id(done.value) and done.value == job_id):
            return diff.Finding(RETURN_ID, got=short(done.value), expected=f"{job_id} (the id of the job it stored)",
                                note="return what queue.enqueue returns")
        self.shown.add(RETURN_ID)
        return None

    def _refused(self, s: Routing, done: Attempt, state: State) -> diff.Finding | None:
        refused = done.error is not None and ({"ValueError", "KeyError"} & set(done.error_bases))
        stored = len(_new_jobs(state))
        if refused and not stored:
            self.shown.add(REFUSED)
            return None
        got = (f"raised {done.error}" if done.error else "returned " + short(done.value)) + f"; {stored} job(s) stored"
        return diff.Finding(REFUSED, got=got, expected="ValueError or KeyError; 0 job(s) stored",
                            note="someone must decide who waits for a new job type before it can run: IMPACT[job_type] "
                                 "raises KeyError for a type nobody classified" if not refused else
                                 "refuse before storing anything")

    def _before(self, others: int) -> State:
        """The jobs table as the scenario writes it (read once for each number of other jobs)."""
        if others not in self._read:
            self._read[others] = diff.in_rollback(self.box.conn, self.reader, _install_jobs(others),
                                                  lambda conn: Attempt())[1]
        return self._read[others]


class impact_as:
    """IMPACT as the scenario has it, for the duration (StayHub's table is put back afterwards, whatever
    happens): the learner's code reads the table it imported, which is this one object here, and the same
    table in the answer's own process in class grading (updated there through the boundary)."""

    def __init__(self, s: Routing, learner_fn: Callable | None = None):
        self.changes = {name: Impact("a scenario of the check", late) for name, late in s.changes}
        self.learner_fn = learner_fn

    def __enter__(self):
        self.saved = {name: IMPACT[name] for name in self.changes if name in IMPACT}
        self.stack = contextlib.ExitStack()
        try:
            self.stack.enter_context(shared.with_entries(self.learner_fn, IMPACT, newsletter_module, "IMPACT",
                                                         self.changes))
        except BaseException:
            IMPACT.update(self.saved)
            raise

    def __exit__(self, *exc):
        try:
            self.stack.close()
        finally:
            IMPACT.update(self.saved)


def _copied(payload):
    """A fresh copy for each call: an answer that changes the payload it is given changes nothing of ours."""
    import copy
    return copy.deepcopy(payload)


# Another session enqueues while the answer's statements run: the id returned must be the answer's own job's.
ROUTE_RACE = Routing("send_confirmation_email", {"booking_id": 981}, others=2)


def _their_job(conn: psycopg.Connection) -> int:
    return queue.enqueue(conn, "render_invoice", {"booking_id": 977}, queue=BULK)


def route_race(judge: RouteJudge) -> tuple[diff.Finding, str] | None:
    s = ROUTE_RACE
    if judge.compare(s) is not None:
        return None
    arena = interleave.Arena(judge.box.conn, judge.box.connect, judge.reader, lambda s: _install_jobs(s.others),
                             lambda value: value)
    act = interleave.Act("another session enqueued a job and committed", _their_job)
    hold = interleave.InTransaction("another session has inserted a job and not yet committed", _their_job)
    learner = judge.learner(s)
    try:
        said = arena.count(learner, s)
        for point in range(2, len(said) + 1):
            got = arena.between(learner, s, act, point)
            if got is not None and (finding := _own_id(got)) is not None:
                return finding, (f"{s.told()}; just before your statement {point} ({got.statements[point - 1]}), "
                                 f"after {got.statements[point - 2]}: {act.told}")
        got = arena.under(learner, s, hold)
        if (finding := _own_id(got)) is not None or got.waited:
            return finding or diff.Finding(AS_GIVEN, got="yours waited for the other session's uncommitted job",
                                           expected="no wait: queue.enqueue's INSERT waits for nobody",
                                           note="store the job with queue.enqueue; never compute an id from the table"), \
                f"{s.told()}; {hold.told}"
    finally:
        arena.close()
    return None


def _own_id(got: diff.Outcome) -> diff.Finding | None:
    theirs = got.others[0] if got.others else None
    new = _new_jobs(got.state)
    mine = [job_id for job_id, row in new.items() if job_id != theirs]
    if got.raised:
        return diff.Finding(AS_GIVEN, got=f"raised {got.raised}", expected="the job stored, beside the other session's")
    if len(mine) != 1 or got.returned != mine[0]:
        return diff.Finding(RETURN_ID, got=f"returned {short(got.returned)}",
                            expected=f"{mine[0] if len(mine) == 1 else 'the id'} (its own job; the other session's "
                                     f"is {theirs})",
                            note="return the id queue.enqueue returns (INSERT ... RETURNING id): reading it back from "
                                 "the table finds another session's job")
    return None


@exercise_check("09.route")
def route_check(t: Trial, enqueue_job, seed=None):
    t.seed = DEFAULT_SEED if seed is None else seed
    box = t.scratch()
    judge = RouteJudge(t, box, enqueue_job)
    verdicts = diff.Verdicts(t, ROUTE_CHECKS)
    diff.search(verdicts, diff.in_turn(route_families()), judge.compare, seed=t.seed, count=ROUTE_SCENARIOS,
                first=route_boundaries())
    found = route_race(judge)
    if found is not None:
        verdicts.add(*found)
    # A rule passes only once the answer has shown it: an answer that stores nothing never put a job on any
    # queue, so it has not shown it routes by impact (a stub used to pass two of five).
    for check in ROUTE_CHECKS:
        if check not in judge.shown:
            verdicts.not_shown(check, NOT_SHOWN)
    verdicts.report()
    t.tell(f"Tried every type StayHub has, a new type on each side of {URGENT_WITHIN_S} s, then {ROUTE_SCENARIOS} job types "
           "drawn (added to IMPACT or reclassified, unknown ones, payloads of every shape), then another session "
           "enqueueing between your statements.")
