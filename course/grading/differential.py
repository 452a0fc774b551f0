"""Differential checks: the learner's answer and the reference answer run on identical state, drawn at
random from everything the exercise allows; where what the rules fix differs, the check fails with the
smallest scenario that shows it, told in the learner's terms, and a seed that replays it.

A check is written as three things of its own and this module's loop:

    draw(rng) -> scenario         # a seeded generator: any state and arguments the statement allows
    compare(scenario) -> Finding  # run both on that state, judge what the rules fix (None: they agree)
    CHECKS = ("takes the oldest ready job ...", ...)   # every check it may name, in report order

    verdicts = Verdicts(t, CHECKS)
    search(verdicts, in_turn(families), compare, seed=seed, count=60)   # stops at a check's first failure
    verdicts.report()                          # per check: ✓, ✗ with its example, or not reached

A scenario is any frozen value with `told()` (itself, in the learner's words: "jobs 1 (send_receipt, due
2 s ago) and 2 (...)") and `shrinks()` (smaller scenarios to try: a row fewer, a plainer value). The
shrinker keeps a smaller scenario as long as it fails the same check, so the example the learner reads
is the smallest the generator's vocabulary can say. Everything is seeded and counted, never timed:
the same seed draws the same scenarios and shrinks to the same example on any machine.

`in_rollback` runs one side of a comparison: the scenario's rows are written, the answer runs, the
schema is read, all in one transaction that is then rolled back — now() stands still inside it, so a
job "due exactly now" is exactly now, and the next scenario starts from nothing. What happens between
two statements of an answer, with other sessions acting, is interleave.py's part.

Learner code is called only through `Trial.attempt` (the one door), on connections the check owns, and
only plain data it returns is compared (`Outcome.returned` is the contract's normal form of it).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import psycopg
from psycopg import sql
from psycopg.pq import TransactionStatus

from course.grading.snapshot import LateState, Reader, State
from course.grading.trial import Attempt, Trial

SHRINK_TRIES = 150  # candidates tried per failure: enough to go from a dozen rows to two


class Scenario(Protocol):
    def told(self) -> str: ...

    def shrinks(self) -> Iterator["Scenario"]: ...


@dataclass(frozen=True)
class Outcome:
    """Everything one run made observable, as plain data: what the answer returned (in the exercise's
    normal form), the exception it raised (None if it returned), every table's rows afterwards, whether
    it waited for another session's lock (and at which of its statements), what the other sessions saw,
    and the answer's statements."""
    returned: Any = None
    raised: str | None = None
    state: State = field(default_factory=dict)
    waited: bool = False
    others: tuple = ()
    statements: tuple[str, ...] = ()
    waited_at: tuple[int, str] | None = None  # the answer's statement that waited: (its number, from 1; its text)


@dataclass(frozen=True)
class Finding:
    """A difference between the answer and the reference, as the learner reads it."""
    check: str  # the check it fails: one of the exercise's check names
    got: str
    expected: str
    note: str | None = None
    example: str | None = None  # set when it should replace the scenario's own told() (an interleaving)


class Verdicts:
    """The first finding of each check, and the report: every check named, in order, passed, failed or
    not reached.

    A comparison names the first rule the answer breaks on a scenario, trying them in CHECKS order, and
    says nothing of the rules after it: an answer that returns nothing fails "returns the job" on every
    scenario, and "takes the oldest" is never judged. So a check that did not fail is shown passed only
    when it comes before the first check that failed; any after it is reported as not reached, and
    counts as not passed: a stub scores nothing it did not show."""

    def __init__(self, t: Trial, checks: Sequence[str]):
        self.t = t
        self.checks = list(checks)
        self.first: dict[str, tuple[Finding, str]] = {}
        self.unshown: dict[str, str] = {}

    def failed(self, check: str) -> bool:
        return check in self.first

    @property
    def all_failed(self) -> bool:
        return all(check in self.first for check in self.checks)

    def add(self, finding: Finding, example: str) -> None:
        self.first.setdefault(finding.check, (finding, finding.example or example))

    def not_shown(self, check: str, why: str) -> None:
        """A check no scenario could have failed, the answer never having done what it is about (a tick that
        decides nothing "changes nothing but its own rows"): unless it failed, it is reported as not judged, and
        not counted as passed."""
        self.unshown[check] = why

    def report(self) -> None:
        names = self.checks + [name for name in self.first if name not in self.checks]
        first_failed = min((i for i, name in enumerate(self.checks) if name in self.first), default=len(names))
        for i, name in enumerate(names):
            if name in self.first:
                finding, example = self.first[name]
                self.t.expect(name, ok=False, got=finding.got, expected=finding.expected, example=example,
                              note=finding.note)
            elif name in self.unshown:
                self.t.not_reached(name, self.unshown[name])
            elif i < first_failed:
                self.t.expect(name, ok=True)
            else:
                self.t.not_reached(name, NOT_REACHED)


NOT_REACHED = "not reached: an earlier check failed first (each scenario is judged up to its first failure)"


def report_in_order(t: Trial, checks: Sequence[str], findings: dict[str, tuple[str, str | None, str | None]],
                    unshown: Mapping[str, str] | None = None) -> None:
    """Verdicts.report's rule for a check that keeps its own findings, {check: (got, example, note)}, and stops at
    the first story that breaks a rule: a check that did not fail passes only before the first that did; the
    ones after it were never judged (the stages that would have were not run) and are not reached. A stub that
    returns None breaks the first rule at once and scores nothing, not every rule it never came near.

    `unshown` {check: why}: checks the answer never gave a chance to fail (a worker step that never called
    its handler cannot have called it inside a transaction): not judged either, whatever came first."""
    first_failed = min((i for i, check in enumerate(checks) if check in findings), default=len(checks))
    for i, check in enumerate(checks):
        if check in findings:
            got, example, note = findings[check]
            t.expect(check, ok=False, got=got, example=example, note=note)
        elif i < first_failed and check in (unshown or {}):
            t.not_reached(check, unshown[check])
        elif i < first_failed:
            t.expect(check, ok=True)
        else:
            t.not_reached(check, NOT_REACHED)


def judged_only_if(t: Trial, shown: bool, checks: Sequence[str], why: str) -> None:
    """Rows that doing nothing passes (nothing stored twice, nothing raised, the queue emptied) say nothing
    until the answer has shown the effect they are about: unless `shown`, each passed row named by one of
    `checks` (a prefix) is reported not judged, and not passed, with `why`."""
    if shown:
        return
    for n, result in enumerate(t.results):
        if result.passed and any(result.name.startswith(check) for check in checks):
            t.results[n] = dataclasses.replace(result, passed=False, reached=False, note=why)


def search(verdicts: Verdicts, draw: Callable[[random.Random], Scenario],
           compare: Callable[[Scenario], Finding | None], *, seed: int, count: int,
           shrink_tries: int = SHRINK_TRIES, first: Sequence[Scenario] = ()) -> None:
    """Compare the scenarios `first` (the boundaries an exercise names, tried on every run: each error kind,
    a value exactly on a threshold), then `count` scenarios drawn from random.Random(seed); the first
    difference found for a check is shrunk and kept. A scenario whose check already failed is not shrunk
    again."""
    rng = random.Random(seed)
    fixed = iter(first)
    for _ in range(len(first) + count):
        if verdicts.all_failed:
            return
        scenario = next(fixed, None)
        scenario = draw(rng) if scenario is None else scenario
        finding = compare(scenario)
        if finding is None or verdicts.failed(finding.check):
            continue
        scenario, finding = smallest(scenario, finding, compare, tries=shrink_tries)
        verdicts.add(finding, scenario.told())


def in_turn(draws: Sequence[Callable[[random.Random], Scenario]]) -> Callable[[random.Random], Scenario]:
    """One draw function from several families: each call takes the next family, so that every family is
    tried in every few scenarios, whatever the seed (a family can be rare by nature: a job due exactly now)."""
    turn = iter(range(10**9))
    return lambda rng: draws[next(turn) % len(draws)](rng)


def smallest(scenario: Scenario, finding: Finding, compare: Callable[[Scenario], Finding | None], *,
             tries: int = SHRINK_TRIES) -> tuple[Scenario, Finding]:
    """Greedy shrinking: take the first smaller scenario that still fails the same check, and start
    again from it, until none does (or `tries` candidates were run)."""
    spent = 0
    improved = True
    while improved and spent < tries:
        improved = False
        for candidate in scenario.shrinks():
            spent += 1
            again = compare(candidate)
            if again is not None and again.check == finding.check:
                scenario, finding, improved = candidate, again, True
                break
            if spent >= tries:
                break
    return scenario, finding


def against(ours: Outcome, allowed: Sequence[Outcome], judge: Callable[[Outcome], Finding | None]) -> Finding | None:
    """Whether `ours` is one of the allowed outcomes: judge(theirs) finds no difference in what the rules fix,
    and the other sessions saw what they saw beside the reference (worker B claimed the job, or found
    nothing). None if so; else the finding against the first allowed outcome whose other sessions saw the
    same as ours did (the same story; the first is the other session acting before the reference, which is
    what happened to the answer), or else the first."""
    findings = [judge(theirs) for theirs in allowed]
    same_story = [theirs.others == ours.others for theirs in allowed]
    if any(finding is None and same for finding, same in zip(findings, same_story)):
        return None
    alike = [finding for finding, same in zip(findings, same_story) if same and finding is not None]
    found = alike or [finding for finding in findings if finding is not None]
    return found[0] if found else Finding("", got=", ".join(map(str, ours.others)),
                                           expected=" or ".join(", ".join(map(str, t.others)) for t in allowed))


# -- one side of a comparison, in a transaction rolled back afterwards ----------------------------------

STATEMENT_TIMEOUT = "5s"  # an answer's statement that runs longer is stopped (an endless loop in SQL)


def in_rollback(conn: psycopg.Connection, reader: Reader, install: sql.Composable,
                act: Callable[[psycopg.Connection], Attempt]) -> tuple[Attempt, State]:
    """Write the scenario (`install`, one or more statements), run `act` on the same connection, read the
    schema, and roll it all back. The answer runs inside the transaction as it would in the caller's:
    its own `with conn.transaction()` becomes a savepoint. The state is a LateState that says how long the
    run took: an answer that reads its own clock (Python's, or clock_timestamp()) writes times up to that much
    after the scenario's now() (on a loaded machine, a lease of 30 s from Python's clock read 30.3 s). If it
    ended the transaction itself (a commit), what it committed is read and then deleted: read after the run,
    its times lag the scenario's by as long as the run took (a relay's own BEGIN ... COMMIT, loaded, 2 s)."""
    conn.execute(sql.SQL("BEGIN; SET LOCAL statement_timeout = {timeout}; {install}; "
                         "SAVEPOINT before_the_answer").format(timeout=sql.Literal(STATEMENT_TIMEOUT),
                                                               install=install))
    committed = False
    try:
        (began,) = conn.execute("SELECT now()").fetchone()  # the scenario's "now", which its times are from
        done = act(conn)
        status = conn.info.transaction_status
        if status == TransactionStatus.INERROR:  # its statement failed: read what stood before it
            conn.execute("ROLLBACK TO SAVEPOINT before_the_answer")
        committed = status == TransactionStatus.IDLE
        (lag_s,) = conn.execute("SELECT extract(epoch FROM clock_timestamp() - %s)::float8", [began]).fetchone()
        state = LateState(reader.read(conn, then="" if committed else "ROLLBACK"), lag_s)  # read, roll back
    finally:
        if conn.info.transaction_status != TransactionStatus.IDLE:
            conn.execute("ROLLBACK")
        if committed:
            clear(conn, reader)
    return done, state


def as_the_caller_runs_it(conn: psycopg.Connection, reader: Reader, install: sql.Composable,
                          act: Callable[[psycopg.Connection], Attempt]) -> tuple[Attempt, State]:
    """in_rollback, unless the answer raised there and does not when it runs as its caller would: on the
    scenario's rows committed, outside any transaction of the check's (an answer that sets its own
    isolation level, or turns autocommit off, cannot run inside one). Then that run is the one observed,
    its rows read and deleted; a raise that happens only inside the check's transaction is the check's."""
    done, state = in_rollback(conn, reader, install, act)
    if done.error is None:
        return done, state
    clear(conn, reader)
    conn.execute(sql.SQL("{install}").format(install=install))
    try:
        (began,) = conn.execute("SELECT clock_timestamp()").fetchone()
        alone = act(conn)
        if conn.info.transaction_status != TransactionStatus.IDLE:
            conn.rollback()
        outside = reader.read(conn)
        # The answer's now() fell somewhere in its own run, and the read came after it: its times may lag
        # by the whole run (a loaded machine made a lease of 30 s read 29.7 s), never by a constant.
        (lag_s,) = conn.execute("SELECT extract(epoch FROM clock_timestamp() - %s)::float8", [began]).fetchone()
        outside = LateState(outside, lag_s)
    finally:
        if conn.info.transaction_status != TransactionStatus.IDLE:
            conn.rollback()
        if not conn.autocommit:
            conn.autocommit = True
        clear(conn, reader)
    return (done, state) if alone.error is not None else (alone, outside)


def clear(conn: psycopg.Connection, reader: Reader) -> None:
    """Delete every row of every table the reader reads (between scenarios that commit)."""
    conn.execute(sql.SQL("; ").join(sql.SQL("DELETE FROM {}").format(sql.Identifier(table.name))
                                    for table in reader.tables))


def values(rows: Sequence[Sequence[sql.Composable]]) -> sql.Composable:
    """VALUES (...), (...) from rows of SQL pieces (sql.Literal, or an expression such as now() + ...)."""
    return sql.SQL("VALUES ") + sql.SQL(", ").join(
        sql.SQL("(") + sql.SQL(", ").join(row) + sql.SQL(")") for row in rows)


def from_now(seconds: float | None) -> sql.Composable:
    """now() + that many seconds, as SQL (NULL for None, 'infinity' for an infinite time)."""
    if seconds is None:
        return sql.NULL
    if seconds in (float("inf"), float("-inf")):
        return sql.SQL("{}::timestamptz").format(sql.Literal("infinity" if seconds > 0 else "-infinity"))
    return sql.SQL("now() + make_interval(secs => {})").format(sql.Literal(float(seconds)))
