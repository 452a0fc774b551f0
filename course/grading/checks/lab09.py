"""Lab 09: one queue or two. Routing by business impact, and a newsletter that lets confirmations by, both
judged differentially (issue 22): the learner's function and the reference's (the solution's
queue.enqueue and queue.enqueue_many calls) on the same jobs table, drawn from everything the statement
allows, then with another session acting between the answer's statements.

09.route draws job types StayHub has, types added to IMPACT for the scenario (late after 0 s, 119.5 s,
exactly 120 s, 120.5 s, a week ...), existing types reclassified, and types nobody classified; payloads
of every shape; other jobs already waiting. 09.newsletter draws guest lists (none, one, a few, unsorted,
ids in the billions, more than a thousand) beside other jobs at other priorities.

What the rules leave free is not compared: the newsletter's priority, as long as it is one value below 0
(NEWSLETTER_PRIORITY is the course's), whether its ids come back as a list or a tuple, and what enqueue leaves
to its defaults besides.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from course.core import queue
from course.programs import newsletter as newsletter_module
from course.programs.newsletter import BULK, IMPACT, NEWSLETTER_PRIORITY, URGENT, URGENT_WITHIN_S, Impact

from course.grading import differential as diff
from course.grading import interleave
from course.grading.checks import exercise_check, shared
from course.grading.checks.quiz import Question, ask, multiple_choice
from course.grading.snapshot import Reader, State
from course.grading.trial import Attempt, Trial, short

DEFAULT_SEED = 9
NEW_FROM = 7000  # the scenario's own jobs have ids below this; the answer's get ids above it
JOB_COLUMNS = ("queue", "type", "payload", "priority", "attempts", "max_attempts", "lease_token", "unique_key")


def _others(count: int) -> list[list[sql.Composable]]:
    """Jobs already waiting: a confirmation, a newsletter job, jobs at other priorities and on other queues."""
    kinds = [("urgent", "send_confirmation_email", {"booking_id": 980}, 0),
             ("default", "send_newsletter", {"guest_id": 1}, NEWSLETTER_PRIORITY),
             ("bulk", "render_invoice", {"booking_id": 979}, 0), ("default", "send_confirmation_email",
                                                                  {"booking_id": 978}, 0),
             ("default", "rebuild_search_index", {}, -5), ("default", "sync_channel_manager", {"hotel": 3}, 5)]
    return [[sql.Literal(100 + n), sql.Literal(q), sql.Literal(t), sql.Literal(Jsonb(p)), sql.Literal(pr)]
            for n, (q, t, p, pr) in enumerate(kinds[:count])]


def _install_jobs(count: int) -> sql.Composable:
    rows = _others(count)
    parts = [sql.SQL("INSERT INTO jobs (id, queue, type, payload, priority) ") + diff.values(rows)] if rows else []
    parts.append(sql.SQL("SELECT setval(pg_get_serial_sequence('jobs', 'id'), {})").format(sql.Literal(NEW_FROM)))
    return sql.SQL("; ").join(parts)


def _new_jobs(state: State) -> dict[int, dict]:
    return {key[0]: row for key, row in state.get("jobs", {}).items() if key[0] > NEW_FROM}


def _kept(state: State, before: State) -> bool:
    """Whether the jobs that were there before are there still, as they were."""
    old = {key: row for key, row in state.get("jobs", {}).items() if key[0] <= NEW_FROM}
    return {k: _columns(r) for k, r in old.items()} == {k: _columns(r) for k, r in before.get("jobs", {}).items()}


def _columns(row: dict) -> tuple:
    return tuple(row.get(name) for name in JOB_COLUMNS)


def _is_id(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- 09.route -----------------------------------------------------------------------------------------------


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


def _queue_for(late: float) -> str:
    return URGENT if late <= URGENT_WITHIN_S else BULK


class RouteJudge:
    def __init__(self, t: Trial, box, enqueue_job: Callable):
        self.t, self.box, self.enqueue_job = t, box, enqueue_job
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
        if _columns(row) != _columns(expected):
            name = next(n for n, mine, want in zip(JOB_COLUMNS, _columns(row), _columns(expected)) if mine != want)
            return diff.Finding(AS_GIVEN, got=f"{name} {short(row[name])}", expected=f"{name} {short(expected[name])}",
                                note="queue.enqueue(conn, job_type, payload, queue=...): the type and payload as "
                                     "given, nothing else")
        if not (_is_id(done.value) and done.value == job_id):
            return diff.Finding(RETURN_ID, got=short(done.value), expected=f"{job_id} (the id of the job it stored)",
                                note="return what queue.enqueue returns")
        return None

    def _refused(self, s: Routing, done: Attempt, state: State) -> diff.Finding | None:
        refused = done.error is not None and ({"ValueError", "KeyError"} & set(done.error_bases))
        stored = len(_new_jobs(state))
        if refused and not stored:
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
    verdicts.report()
    t.tell(f"Tried every type StayHub has, a new type on each side of {URGENT_WITHIN_S} s, then {ROUTE_SCENARIOS} job types "
           "drawn (added to IMPACT or reclassified, unknown ones, payloads of every shape), then another session "
           "enqueueing between your statements.")


# -- 09.newsletter ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Guests:
    """A scenario: other jobs waiting, and enqueue_newsletter(conn, guest_ids)."""
    ids: tuple[int, ...]
    others: int = 0

    def told(self) -> str:
        shown = list(self.ids) if len(self.ids) <= 8 else f"[{', '.join(map(str, self.ids[:4]))}, ... ({len(self.ids)} guests)]"
        others = f"{self.others} other job(s) waiting (a confirmation, a newsletter job, priorities -5 to 5); " \
            if self.others else ""
        return f"{others}enqueue_newsletter(conn, {shown})"

    def shrinks(self) -> Iterator["Guests"]:
        n = len(self.ids)
        for size in sorted({0, 1, 2, n // 2, n - 1} - {n}):
            if size < n:
                yield replace(self, ids=self.ids[:size])
        if self.others:
            yield replace(self, others=0)


def newsletter_families() -> list[Callable[[random.Random], Guests]]:
    def few(rng):  # a handful, in no order
        return Guests(tuple(rng.sample(range(100, 1000), rng.randint(1, 6))), rng.choice([0, 3, 6]))

    def none_or_one(rng):
        return Guests(tuple(rng.sample(range(1, 50), rng.choice([0, 1]))), rng.choice([0, 6]))

    def big_ids(rng):  # ids from another system: large, descending, or starting at 0
        kind = rng.choice(["large", "descending", "zero"])
        ids = {"large": [rng.randint(2**31, 2**40) for _ in range(4)], "descending": [9, 7, 5, 3, 1],
               "zero": [0, 1, 2]}[kind]
        return Guests(tuple(ids), rng.choice([0, 6]))

    def many(rng):  # more than a thousand: a batch size written into the answer shows
        start = rng.randint(1, 100)
        return Guests(tuple(range(start, start + rng.choice([60, 1001]))), 6)

    def listed_twice(rng):  # a guest on the list twice gets two jobs, as with any list: one per entry
        ids = rng.sample(range(100, 1000), rng.randint(2, 5))
        return Guests(tuple(ids + [rng.choice(ids)]), rng.choice([0, 6]))

    return [few, none_or_one, big_ids, many, listed_twice]


NEWSLETTER_BOUNDARIES = (Guests(()), Guests((7,)), Guests((9, 7, 5, 3, 1), 6), Guests((2**40, 0, 1)),
                         Guests((5, 3, 5)))


ONE_PER_GUEST = "stores one job per guest"
CONTENT = "each job is a 'send_newsletter' with the guest's id and nothing else"
ONE_QUEUE = "every job is on the one queue, 'default'"
BELOW = "a confirmation enqueued after the newsletter (at the default priority, 0) is claimed first"
OWN_ORDER = "the newsletter itself goes out in the order given"
ONE_TX = "the whole newsletter is enqueued in one transaction"
RETURNS = "returns the new jobs' ids, one per guest"
IDS_ORDER = "the ids returned are the stored jobs' ids, in the guests' order"
EMPTY = "no guests: returns [] and stores nothing"
NEWSLETTER_CHECKS = (ONE_PER_GUEST, CONTENT, ONE_QUEUE, BELOW, OWN_ORDER, ONE_TX, RETURNS, IDS_ORDER, EMPTY)
NEWSLETTER_SCENARIOS = 12


class NewsletterJudge:
    def __init__(self, t: Trial, box, enqueue_newsletter: Callable):
        self.t, self.box, self.answer = t, box, enqueue_newsletter
        self.reader = Reader.of(box.conn, only=("jobs",))
        self._read: dict[int, State] = {}
        self.statements: dict[int, int] = {}  # guests -> the statements the answer ran for them, in the race

    def learner(self, g: Guests) -> Callable[[psycopg.Connection], Attempt]:
        return lambda conn: self.t.attempt(self.answer, conn, list(g.ids))

    def compare(self, g: Guests) -> diff.Finding | None:
        install = _install_jobs(g.others)
        if g.others not in self._read:
            self._read[g.others] = diff.in_rollback(self.box.conn, self.reader, install, lambda conn: Attempt())[1]
        done, state = diff.as_the_caller_runs_it(self.box.conn, self.reader, install, self.learner(g))
        return judge_newsletter(g, done, state, self._read[g.others])


def reference_newsletter(conn: psycopg.Connection, guest_ids: list) -> list[int]:
    """The solution's answer: what judge_newsletter holds the learner's to (the lab's tests hold it there)."""
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": guest} for guest in guest_ids],
                              priority=NEWSLETTER_PRIORITY)


def judge_newsletter(g: Guests, done: Attempt, state: State, before: State) -> diff.Finding | None:
    """What the learner's newsletter left, held to what the reference's leaves: one send_newsletter job per guest,
    {"guest_id": <id>}, on 'default', at one priority below 0 (which one is free), in the guests' order, the
    ids returned in that order; the jobs that were there before, as they were."""
    new = _new_jobs(state)
    if not g.ids:
        if done.error or not (isinstance(done.value, (list, tuple)) and len(done.value) == 0) or new:
            got = f"raised {done.error}" if done.error else f"returned {short(done.value)}, {len(new)} job(s) stored"
            return diff.Finding(EMPTY, got=got, expected="returned [], 0 jobs stored")
        return None
    if done.error:
        return diff.Finding(ONE_PER_GUEST, got=f"raised {done.error}", expected=f"{len(g.ids)} jobs stored")
    if len(new) != len(g.ids) or not _kept(state, before):
        return diff.Finding(ONE_PER_GUEST, got=f"{len(new)} job(s) stored" + (
            "" if _kept(state, before) else ", and jobs already there changed"), expected=f"{len(g.ids)}, one per guest")
    by_claim = [row for _, row in sorted(new.items(), key=lambda item: (-item[1]["priority"], item[1]["run_at"],
                                                                        item[0]))]
    stored = sorted((row["type"], short(row["payload"])) for row in new.values())
    wanted = sorted(("send_newsletter", short({"guest_id": guest})) for guest in g.ids)
    if stored != wanted:
        wrong = next(pair for pair in zip(stored, wanted) if pair[0] != pair[1])
        return diff.Finding(CONTENT, got=f"{wrong[0][0]} {wrong[0][1]}", expected=f"{wrong[1][0]} {wrong[1][1]}",
                            note="payload {\"guest_id\": <id>} and nothing else: the worker reads the rest fresh")
    queues = sorted({row["queue"] for row in new.values()})
    if queues != ["default"]:
        return diff.Finding(ONE_QUEUE, got=queues, expected=["default"],
                            note="this StayHub keeps one queue: a job on another one waits for a worker nobody runs")
    priorities = sorted({row["priority"] for row in new.values()})
    if max(priorities) >= 0:
        return diff.Finding(BELOW, got=f"priority {max(priorities)}", expected="a priority below 0 (NEWSLETTER_PRIORITY)",
                            note="the claim takes the highest priority first (ORDER BY priority DESC): a confirmation "
                                 "at the default 0 goes first only if every newsletter job is below 0")
    sent = [row["payload"].get("guest_id") for row in by_claim]
    if len(priorities) > 1:  # the claim order may still match the guests' today: what breaks is the priorities
        return diff.Finding(OWN_ORDER, got=f"{len(priorities)} priorities: {short(priorities)}",
                            expected="one priority for every newsletter job",
                            note="give every newsletter job the same priority and store them in the guests' order: the "
                                 "claim keeps enqueue order within one priority")
    if sent != list(g.ids):
        return diff.Finding(OWN_ORDER, got=sent if len(sent) <= 8 else f"{sent[:4]}... in another order",
                            expected=list(g.ids) if len(g.ids) <= 8 else f"{list(g.ids[:4])}... in the order given",
                            note="give every newsletter job the same priority and store them in the guests' order: the "
                                 "claim keeps enqueue order within one priority")
    if not (isinstance(done.value, (list, tuple)) and len(done.value) == len(g.ids) and all(map(_is_id, done.value))):
        return diff.Finding(RETURNS, got=short(done.value), expected=f"a list of {len(g.ids)} ids")
    in_order = [job_id for job_id, _ in sorted(new.items(), key=lambda item: (item[1]["run_at"], item[0]))]
    if list(done.value) != in_order:  # the claim order is the guests' (checked above), a guest listed twice included
        return diff.Finding(IDS_ORDER, got=short(done.value), expected=short(in_order),
                            note="the id of guest i's job at place i: what queue.enqueue_many returns")
    return None


# One transaction: another session looks at the jobs table between the answer's statements.
NEWSLETTER_RACES = (Guests((101, 102, 103, 104, 105)), Guests(tuple(range(1, 1002))))


def _counted(conn: psycopg.Connection) -> int:
    return conn.execute("SELECT count(*) FROM jobs WHERE id > %s", [NEW_FROM]).fetchone()[0]


def newsletter_race(judge: NewsletterJudge) -> tuple[diff.Finding, str] | None:
    act = interleave.Act("another session counted the newsletter's jobs", _counted)
    arena = interleave.Arena(judge.box.conn, judge.box.connect, judge.reader, lambda g: _install_jobs(g.others),
                             lambda value: value)
    try:
        for g in NEWSLETTER_RACES:
            if judge.compare(g) is not None:
                continue
            said = arena.count(judge.learner(g), g)
            judge.statements[len(g.ids)] = len(said)
            if len(g.ids) > 10 and len(said) > 50:  # one statement per guest: the five guests above showed how it commits
                continue
            points = sorted({2, 3, len(said) // 2 + 1, len(said)} & set(range(2, len(said) + 1)))
            for point in points:
                got = arena.between(judge.learner(g), g, act, point)
                seen = got.others[0] if got is not None and got.others else 0
                if got is not None and seen not in (0, len(g.ids)):
                    return (diff.Finding(ONE_TX, got=f"another session saw {seen} of the {len(g.ids)} jobs",
                                         expected=f"0 or {len(g.ids)}: none of the newsletter, or all of it",
                                         note="each enqueue on an autocommit connection commits on its own: a crash "
                                              "halfway leaves half a newsletter. queue.enqueue_many stores the list in "
                                              "one statement (or wrap your loop in one with conn.transaction():)"),
                            f"{g.told()}; just before your statement {point} ({got.statements[point - 1]}): {act.told}")
    finally:
        arena.close()
    return None


# A batch size written into the answer (each batch committing on its own) splits only a longer list: 10,001
# guests show any up to 10,000. Counted, never read row by row (TRUNCATE, not diff.clear's DELETE); given only
# to an answer that batches (one statement per guest showed how it commits on the thousand above).
BIG = Guests(tuple(range(1, 10_002)))


def big_newsletter(judge: NewsletterJudge) -> tuple[diff.Finding, str] | None:
    statements = judge.statements.get(len(NEWSLETTER_RACES[-1].ids))
    if statements is None:  # not right alone
        return None
    # An answer with a statement per guest on the thousand may still commit them one by one past some size of
    # its own (enqueue_many up to 500, say): it is watched on that thousand, before a few of its statements.
    many = BIG if statements <= 50 else NEWSLETTER_RACES[-1]
    looks = None if many is BIG else {2, 3, statements // 2 + 1, statements}
    watch, conn = judge.box.connect(), judge.box.conn
    seen: list[tuple[int, str, int]] = []  # (statement, its text, the jobs another session counted before it)

    def before(n: int, text: str) -> None:
        if looks is None or n in looks:
            seen.append((n, text, _counted(watch)))

    try:
        watch.execute(sql.SQL("TRUNCATE jobs; ") + _install_jobs(many.others))
        with interleave.statements(conn, before):
            interleave.Background(lambda: judge.learner(many)(conn)).result(interleave.FINISH_S)
    finally:
        if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            conn.rollback()
        watch.execute("TRUNCATE jobs")
        watch.close()
    n, text, count = next(((n, said, c) for n, said, c in seen if c not in (0, len(many.ids))), (0, "", 0))
    if not n:  # before every statement, another session saw none of the newsletter or all of it
        return None
    return (diff.Finding(ONE_TX, got=f"another session saw {count} of the {len(many.ids)} jobs",
                         expected=f"0 or {len(many.ids)}: none of the newsletter, or all of it",
                         note="the newsletter went in batches that each committed on their own: a crash between two "
                              "leaves part of it. One queue.enqueue_many stores the whole list in one statement (48,000 "
                              "take a second or two), or wrap the batches in one with conn.transaction():"),
            f"{many.told()}; just before your statement {n} ({text}): another session counted the newsletter's jobs")


@exercise_check("09.newsletter")
def newsletter_check(t: Trial, enqueue_newsletter, seed=None):
    t.seed = DEFAULT_SEED if seed is None else seed
    box = t.scratch()
    judge = NewsletterJudge(t, box, enqueue_newsletter)
    verdicts = diff.Verdicts(t, NEWSLETTER_CHECKS)
    diff.search(verdicts, diff.in_turn(newsletter_families()), judge.compare, seed=t.seed, count=NEWSLETTER_SCENARIOS,
                first=NEWSLETTER_BOUNDARIES)
    found = newsletter_race(judge) or big_newsletter(judge)
    if found is not None:
        verdicts.add(*found)
    verdicts.report()
    t.tell(f"Tried no guests, one, a descending list and ids in the billions, then {NEWSLETTER_SCENARIOS} guest lists drawn "
           "(unsorted, over a thousand) beside other jobs, then another session looking at the jobs table between your "
           f"statements, on {len(NEWSLETTER_RACES[-1].ids):,} guests and on {len(BIG.ids):,}.")


@exercise_check("09.predict_fifo")
def predict_fifo_check(t: Trial, predict_fifo):
    ask(t, "predict_fifo", predict_fifo, "b",
        "how long the confirmation waits behind 240 newsletter jobs in one FIFO queue",
        "look at what the run measured: how many newsletter jobs were claimed before the confirmation?")


@exercise_check("09.predict_priorities")
def predict_priorities_check(t: Trial, predict_priorities):
    ask(t, "predict_priorities", predict_priorities, "b",
        "how long the confirmation waits with the newsletter at a lower priority",
        "look at what the run measured: what could still be in a worker's hands when the confirmation arrived?")


@exercise_check("09.predict_two_queues")
def predict_two_queues_check(t: Trial, predict_two_queues):
    ask(t, "predict_two_queues", predict_two_queues, "b",
        "the confirmation's wait and the newsletter's throughput with a queue and a worker each",
        "look at what the run measured: how many workers served the newsletter?")


quiz = multiple_choice(
    "09.quiz",
    q1=Question("c", "the confirmation behind 48,000 newsletter jobs at 40 jobs/s",
                "how many seconds does it take to get through 48,000 jobs at 40 a second?"),
    q2=Question("b", "the longest a confirmation waits with priorities on one queue",
                "it jumps the waiting jobs, but both workers are already busy with one newsletter job each"),
    q3=Question("b", "what a dedicated urgent worker costs",
                "how many workers are left for the newsletter, and what happens to its 20 minutes?"),
    q4=Question("c", "the alert that catches late confirmations",
                "which number tells you a guest has been waiting too long, whatever the newsletter does?"),
    q5=Question("b", "the newsletter during a flash sale, with priorities in one queue",
                "look at the flash sale's plot: what did the workers claim while confirmations were waiting?"),
)
