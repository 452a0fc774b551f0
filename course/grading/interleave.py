"""Another session acting between the statements of an answer: the adversary of a differential check.

An answer that writes SQL must leave a state the rules allow however other sessions' work falls between
its statements. The reference answer is one statement, so it defines what is allowed: the answer's
outcome must be one the reference reaches with the other session acting before it or after it. Three
kinds of adversary, each run by an `Arena` on the check's own connections:

    Act    another session does one thing just before the answer's statement k (k = 2, 3, ...): claims
           the same job, lets a lease run out, commits a new row. `arena.between(answer, s, act, k)`;
           the allowed outcomes are `arena.around(reference, s, act, first=True)` and `first=False`.
    Hold   another session is part-way through its own work when the answer starts, its locks held:
           `InTransaction` (a transaction left open), `HeldAtCommit` (its code ran to its COMMIT and waits
           there, every lock held), `StoppedBeforeItWrites` (its code locked its rows and waits before
           changing them). `arena.under(answer, s, hold)` is compared with `arena.under(reference, s, hold)`.

The answer runs on a connection whose cursors pause before each statement (a cursor class of the
check's own connection: nothing of the learner's is patched, and the learner's code may be elsewhere,
calling this connection by reference). Any session may block on another's locks; nothing here waits for
that to end. Like PostgreSQL's isolation tester, the arena watches `pg_blocking_pids()`: a session
that waits for a lock is left waiting and the others go on, and an answer that waited is told so
(`Outcome.waited`). `lock_probe` tells which row locks an answer passes over, by behaviour alone.

Why one module: it is one idea, other sessions at work around an answer's statements; the pause, the
sessions run beside the check, the three kinds of adversary and the arena that runs them only make
sense together (each adversary is a few lines on the arena's sessions and its watch on lock waits).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql
from psycopg.pq import TransactionStatus

from course.grading.differential import Finding, Outcome, clear
from course.grading.snapshot import Reader, State
from course.grading.trial import Attempt, NotStarted

SETTLE_S = 10.0  # longest a session may run before the arena calls it stuck (a loaded machine's worst)
POLL_S = 0.002
STATEMENT_TIMEOUT = "8s"  # an answer blocked for longer is stopped, so a check always ends
FINISH_S = 300.0  # bounds a hang only: an answer of a thousand statements, each paused for, may take a minute at load 40
READ_STEP_S = 0.5  # what a race's state is read to: its times are real, its adversaries' leases whole seconds


# -- pausing before each statement ----------------------------------------------------------------------


def first_line(query: Any, conn: psycopg.Connection) -> str:
    """A statement's first meaningful line, for messages: "UPDATE jobs SET ...", not its whole text."""
    if isinstance(query, sql.Composable):
        query = query.as_string(conn)
    if isinstance(query, bytes):
        query = query.decode(errors="replace")
    lines = [line.strip() for line in str(query).splitlines() if line.strip() and not line.strip().startswith("--")]
    text = " ".join(lines)
    return text if len(text) <= 70 else text[:67] + "..."


@contextlib.contextmanager
def statements(conn: psycopg.Connection, before: Callable[[int, str], None]) -> Iterator[list[str]]:
    """While in the block, before(n, text) runs before the n-th statement sent through `conn`'s cursors
    (conn.execute, conn.cursor().execute, executemany). Yields the list of statements, growing."""
    seen: list[str] = []

    class Paused(psycopg.Cursor):
        def _before(self, query) -> None:
            seen.append(first_line(query, self.connection))
            before(len(seen), seen[-1])

        def execute(self, query, params=None, **kwargs):
            self._before(query)
            return super().execute(query, params, **kwargs)

        def executemany(self, query, params_seq, **kwargs):
            self._before(query)
            return super().executemany(query, params_seq, **kwargs)

        def stream(self, query, params=None, **kwargs):
            self._before(query)
            return super().stream(query, params, **kwargs)

    previous = conn.cursor_factory
    conn.cursor_factory = Paused
    try:
        yield seen
    finally:
        conn.cursor_factory = previous


# -- sessions, and code running beside the check ---------------------------------------------------------


@dataclass
class Session:
    """Another connection to the check's schema, with its server process id (to watch its lock waits)."""
    conn: psycopg.Connection
    name: str

    @property
    def pid(self) -> int:
        return self.conn.info.backend_pid


def blocked(watch: psycopg.Connection, pid: int, by: Sequence[int]) -> bool:
    """Whether that server process is waiting for a lock one of the sessions `by` holds. Only the check's
    own sessions count: autovacuum truncating a table holds a lock for a moment too, and is no adversary."""
    return watch.execute("SELECT pg_blocking_pids(%s) && %s::int[]", [pid, list(by)]).fetchone()[0]


class Background:
    """fn() in a thread of its own, so the check can go on while it waits for a lock."""

    def __init__(self, fn: Callable[[], Any]):
        self.value: Any = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(fn,), daemon=True)
        self.thread.start()

    def _run(self, fn: Callable[[], Any]) -> None:
        try:
            self.value = fn()
        except BaseException as error:  # noqa: BLE001 (handed back to the check's thread by result())
            self.error = error

    def settle(self, watch: psycopg.Connection, pid: int, by: Sequence[int], timeout_s: float = SETTLE_S) -> str:
        """Wait until fn() has finished ("done") or its session waits for a lock one of `by` holds
        ("waiting"); "running" if neither happened within timeout_s."""
        deadline = time.monotonic() + timeout_s
        while self.thread.is_alive():
            if blocked(watch, pid, by):
                return "waiting"
            if time.monotonic() > deadline:
                return "running"
            time.sleep(POLL_S)
        return "done"

    def result(self, timeout_s: float = SETTLE_S) -> Any:
        self.thread.join(timeout_s)
        if self.thread.is_alive():
            raise TimeoutError("a session the check started did not finish")
        if self.error is not None:
            raise self.error
        return self.value


# -- the adversaries ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Act:
    """Another session does one thing (one or more statements of its own, committed), in the learner's
    words `told` ("worker B claims the next job"). run(conn) returns what it saw, as plain data."""
    told: str
    run: Callable[[psycopg.Connection], Any]


@dataclass(frozen=True)
class Raised:
    """What another session saw when its statement failed (a deadlock, say), as plain data."""
    error: str

    def __str__(self) -> str:
        return f"raised {self.error}"


def observed(run: Callable[[], Any]) -> Any:
    """run(), or Raised(...) when the database refused it: another session's failure is an observation."""
    try:
        return run()
    except psycopg.Error as error:
        return Raised(f"{type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}")


@dataclass(frozen=True)
class Holding:
    release: Callable[[], None]  # let the other session go on (returns at once)
    seen: Callable[[], Any]  # wait for it to finish; what it saw


class Hold:
    """Another session part-way through its work when the answer starts. start() puts it in place."""
    told: str

    def start(self, arena: "Arena") -> Holding:
        raise NotImplementedError


@dataclass(frozen=True)
class InTransaction(Hold):
    """take(conn) ran in a transaction that stays open (its row locks held) until released."""
    told: str
    take: Callable[[psycopg.Connection], Any]

    def start(self, arena: "Arena") -> Holding:
        holder = arena.session("holder")
        holder.conn.execute("BEGIN")
        seen = observed(lambda: self.take(holder.conn))
        return Holding(lambda: holder.conn.execute("COMMIT"), lambda: seen)


@dataclass(frozen=True)
class HeldAtCommit(Hold):
    """run(conn) runs in another session whose every write waits at its COMMIT, all its locks held, until
    released: another worker caught in the last instant of its work."""
    told: str
    run: Callable[[psycopg.Connection], Any]

    def start(self, arena: "Arena") -> Holding:
        worker = arena.session("held", application_name=arena.held_name)
        arena.watch.execute("SELECT pg_advisory_lock(%s)", [arena.key])
        running = Background(lambda: observed(lambda: self.run(worker.conn)))
        running.settle(arena.watch, worker.pid, arena.pids)
        return Holding(lambda: arena.watch.execute("SELECT pg_advisory_unlock(%s)", [arena.key]), running.result)


@dataclass(frozen=True)
class StoppedBeforeItWrites(Hold):
    """run(conn) runs in another session, stopped after it locked the rows `rows` selects and before it
    changes them: a third session holds FOR SHARE on those rows, which lets every row lock in but no
    change. A lock that another worker's lock does not keep out shows here: the answer takes the same
    row, then waits, or changes it twice."""
    told: str
    rows: sql.Composable  # SELECT ... FROM <table> WHERE ...: the rows the other worker will go for
    run: Callable[[psycopg.Connection], Any]

    def start(self, arena: "Arena") -> Holding:
        sharer = arena.session("sharer")
        sharer.conn.execute("BEGIN")
        sharer.conn.execute(sql.SQL("{} FOR SHARE").format(self.rows))
        worker = arena.session("worker")
        running = Background(lambda: observed(lambda: self.run(worker.conn)))
        running.settle(arena.watch, worker.pid, arena.pids)
        return Holding(lambda: sharer.conn.execute("COMMIT"), running.result)


# -- the arena ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Told:
    """Where the adversary acted, in the learner's words, for a Finding's example. `between` is true when
    it acted between two of the answer's statements, false when it held its locks around the answer."""
    scenario: str
    when: str
    between: bool = True

    def __str__(self) -> str:
        return f"{self.scenario}; {self.when}"


class Arena:
    """The check's sessions around one answer connection, and the runs of the three kinds.

    `install(scenario)` gives the SQL that writes a scenario's rows; `contract(value)` puts what an
    answer returned in the exercise's normal form. Answers are callables answer(conn) -> Attempt (the
    learner's through Trial.attempt; the reference's likewise, so both are observed the same way)."""

    def __init__(self, conn: psycopg.Connection, connect: Callable[..., psycopg.Connection], reader: Reader,
                 install: Callable[[Any], sql.Composable], contract: Callable[[Any], Any]):
        self.conn, self.connect, self.reader, self.install, self.contract = conn, connect, reader, install, contract
        self.watch = connect()
        self.sessions: dict[str, Session] = {}
        self.key = secrets.randbits(62)
        self.held_name = f"course-held-{self.key}"
        self._hold_commits()
        self.conn.execute(f"SET statement_timeout = '{STATEMENT_TIMEOUT}'")
        _quietly(self.conn, "SET deadlock_timeout = '10s'")  # in a deadlock, the other session gives way

    def session(self, name: str, *, application_name: str | None = None) -> Session:
        if name not in self.sessions:
            conn = self.connect()
            conn.execute(f"SET statement_timeout = '{STATEMENT_TIMEOUT}'")
            _quietly(conn, "SET deadlock_timeout = '100ms'")
            if application_name:
                conn.execute("SELECT set_config('application_name', %s, false)", [application_name])
            self.sessions[name] = Session(conn, name)
        return self.sessions[name]

    @property
    def pids(self) -> list[int]:
        """The server processes of every session the check runs here: the answer's, the watch, the others."""
        return [self.conn.info.backend_pid, self.watch.info.backend_pid,
                *(session.pid for session in self.sessions.values())]

    def close(self) -> None:
        for session in self.sessions.values():
            session.conn.close()
        with contextlib.suppress(psycopg.Error):
            for table in self.reader.tables:
                self.watch.execute(sql.SQL("DROP TRIGGER IF EXISTS course_held_commit ON {}").format(
                    sql.Identifier(table.name)))
        self.watch.close()
        self.conn.execute("RESET statement_timeout")
        _quietly(self.conn, "RESET deadlock_timeout")

    def _hold_commits(self) -> None:
        """Every write by a session named held_name waits at its COMMIT until the check lets it go."""
        self.watch.execute(sql.SQL("""
            CREATE OR REPLACE FUNCTION course_held_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF current_setting('application_name') = {name} THEN PERFORM pg_advisory_xact_lock({key}); END IF;
                RETURN NULL;
            END $$""").format(name=sql.Literal(self.held_name), key=sql.Literal(self.key)))
        for table in self.reader.tables:
            self.watch.execute(sql.SQL(
                "CREATE CONSTRAINT TRIGGER course_held_commit AFTER INSERT OR UPDATE OR DELETE ON {} "
                "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION course_held_commit()").format(
                sql.Identifier(table.name)))

    # -- one run of each kind ---------------------------------------------------------------------------

    def reset(self, scenario: Any) -> None:
        """The scenario's rows, committed, and nothing else."""
        clear(self.watch, self.reader)
        self.watch.execute(self.install(scenario))

    def read(self) -> State:
        """The schema, times to the half second: a run's moments drift by milliseconds (more on a busy
        machine), and the report of a race must read the same every time it is replayed."""
        return self.reader.read(self.watch, step_s=READ_STEP_S)

    def count(self, answer: Callable[[psycopg.Connection], Attempt], scenario: Any) -> tuple[str, ...]:
        """The statements the answer runs on this scenario with no one else acting."""
        self.reset(scenario)
        with statements(self.conn, lambda n, text: None) as seen:
            self._finish(Background(lambda: answer(self.conn)))
        return tuple(seen)

    def between(self, answer: Callable[[psycopg.Connection], Attempt], scenario: Any, act: Act,
                point: int) -> Outcome | None:
        """`act` runs in another session just before the answer's statement number `point`; None when the
        answer ran fewer statements this time."""
        self.reset(scenario)
        other = self.session("B")
        acting: list[Background] = []

        def before(n: int, text: str) -> None:
            if n == point:
                acting.append(Background(lambda: observed(lambda: act.run(other.conn))))
                acting[0].settle(self.watch, other.pid, self.pids)  # done, or waiting for the answer's locks

        with statements(self.conn, before) as seen:
            done = self._finish(Background(lambda: answer(self.conn)))
        if not acting:
            return None
        return self._outcome(done, others=(acting[0].result(),), statements=seen)

    def around(self, answer: Callable[[psycopg.Connection], Attempt], scenario: Any, act: Act, *,
               first: bool) -> Outcome:
        """`act` runs just before the answer (first=True) or just after it: the two orders a one-statement
        answer allows."""
        self.reset(scenario)
        other = self.session("B")
        seen_first = observed(lambda: act.run(other.conn)) if first else None
        done = self._finish(Background(lambda: answer(self.conn)))
        seen = seen_first if first else observed(lambda: act.run(other.conn))
        return self._outcome(done, others=(seen,))

    def under(self, answer: Callable[[psycopg.Connection], Attempt], scenario: Any, hold: Hold) -> Outcome:
        """The answer runs while `hold` is in place; if it waits for the hold's locks, the hold is let go
        (and the answer is said to have waited, at the statement it was running then)."""
        self.reset(scenario)
        holding = hold.start(self)
        with statements(self.conn, lambda n, text: None) as seen:
            running = Background(lambda: answer(self.conn))
            waited = running.settle(self.watch, self.conn.info.backend_pid, self.pids) == "waiting"
            waited_at = (len(seen), seen[-1]) if waited and seen else None
            holding.release()
            done = self._finish(running)
        return self._outcome(done, others=(holding.seen(),), waited=waited, waited_at=waited_at)

    def _finish(self, running: Background) -> Attempt:
        try:
            done = running.result(FINISH_S)
        except NotStarted:
            raise
        finally:
            if self.conn.info.transaction_status != TransactionStatus.IDLE:  # an answer that left one open
                self.conn.rollback()
        return done

    def _outcome(self, done: Attempt, *, others: tuple = (), waited: bool = False,
                 statements: Sequence[str] = (), waited_at: tuple[int, str] | None = None) -> Outcome:
        for session in self.sessions.values():  # a session whose statement failed is left ready for the next
            if session.conn.info.transaction_status != TransactionStatus.IDLE:
                session.conn.rollback()
        return Outcome(returned=None if done.error else self.contract(done.value), raised=done.error,
                       state=self.read(), waited=waited, others=others, statements=tuple(statements),
                       waited_at=waited_at)


def _quietly(conn: psycopg.Connection, statement: str) -> None:
    """A setting only a superuser may change: set it where we can (the course's own server), else not."""
    try:
        with conn.transaction():
            conn.execute(statement)
    except psycopg.errors.InsufficientPrivilege:
        pass


# -- a crash between an answer's steps ----------------------------------------------------------------------


class Killed(BaseException):
    """Raised into the answer's own code at a kill point: its process is gone, and nothing after runs (a
    BaseException, so that an answer's `except Exception:` cannot carry on as if it were still alive)."""


class KillPoint:
    """Kills an answer just before its step number `at` (1: its first): its session is ended from the
    server's side, as a SIGKILL of its process leaves it (an open transaction rolled back, what it
    committed kept), and the answer is stopped there. Its steps are its statements, counted while inside
    `watching()`, and whatever else a check counts as one (a publish, a send: the check calls `step`).
    Any step after the kill stops the answer again. With at=0 it only counts."""

    def __init__(self, watch: psycopg.Connection, conn: psycopg.Connection, at: int):
        self.watch, self.conn, self.at = watch, conn, at
        self.steps: list[str] = []
        self.dead = False
        self.pid = conn.info.backend_pid

    def step(self, what: str) -> None:
        if not self.dead:
            self.steps.append(what)
        if self.dead or len(self.steps) == self.at:
            self.kill()

    def kill(self) -> None:
        if not self.dead:
            self.dead = True
            self.watch.execute("SELECT pg_terminate_backend(%s)", [self.pid])
            deadline = time.monotonic() + SETTLE_S  # its locks go with its server process: wait for that
            while self.watch.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s",
                                     [self.pid]).fetchone()[0] and time.monotonic() < deadline:
                time.sleep(POLL_S)
        raise Killed(f"killed just before step {self.at}")

    @contextlib.contextmanager
    def watching(self) -> Iterator["KillPoint"]:
        quiet = logging.getLogger("psycopg")  # it warns of the rollback a cut session cannot do: that is the kill
        level = quiet.level
        quiet.setLevel(logging.ERROR)
        try:
            with statements(self.conn, lambda n, text: self.step(text)):
                yield self
        finally:
            quiet.setLevel(level)


# -- the exploration --------------------------------------------------------------------------------------


def explore(arena: Arena, scenario: Any, *, answer: Callable, reference: Callable,
            acts: Sequence[tuple[Act, Act]], holds: Sequence[tuple[Hold, Hold]],
            judge: Callable[[Any, Outcome, list[Outcome]], Finding | None]) -> tuple[Finding, Told] | None:
    """Every adversary against the answer, and the first difference the rules do not allow.

    acts: (as it runs beside the answer, as it runs beside the reference) — "worker B runs your claim"
    beside yours is "worker B runs the reference claim" beside the reference's. Each act goes before each
    of the answer's statements after its first; the outcome must be one the reference reaches with the
    act before it or after it. holds: the same pairing; the outcome under the hold must be the
    reference's under it."""
    told = scenario.told()
    said = arena.count(answer, scenario)
    for ours, theirs in acts:
        allowed: list[Outcome] | None = None
        for point in range(2, len(said) + 1):
            got = arena.between(answer, scenario, ours, point)
            if got is None:
                continue
            if allowed is None:
                allowed = [arena.around(reference, scenario, theirs, first=first) for first in (True, False)]
            finding = judge(scenario, got, allowed)
            if finding is not None:
                return finding, Told(told, f"just before your statement {point} ({got.statements[point - 1]}), "
                                           f"after your statement {point - 1} ({got.statements[point - 2]}): "
                                           f"{ours.told}")
    for ours, theirs in holds:
        got = arena.under(answer, scenario, ours)
        finding = judge(scenario, got, [arena.under(reference, scenario, theirs)])
        if finding is not None:
            return finding, Told(told, ours.told, between=False)
    return None


# -- how an answer meets a locked row ----------------------------------------------------------------------

ROW_LOCKS = ("FOR KEY SHARE", "FOR SHARE", "FOR NO KEY UPDATE", "FOR UPDATE")  # weakest first


def lock_probe(arena: Arena, answer: Callable, scenario: Any, row: sql.Composable,
               took: Callable[[Outcome], bool]) -> dict[str, str]:
    """For each row lock another session may hold on `row` (SELECT ... FROM t WHERE ...), what the answer
    does: "passes over" the row (it takes another, without waiting), "waits" for the lock, or "takes" the
    row as if the lock were not there. Which locks an answer passes over tells which lock its own
    choosing takes, by behaviour alone: FOR UPDATE SKIP LOCKED passes over all four; a weaker lock with
    SKIP LOCKED passes over FOR UPDATE only; no lock at all takes the row under FOR KEY SHARE."""
    found = {}
    for mode in ROW_LOCKS:
        hold = InTransaction(f"another session holds {mode} on the row",
                             lambda conn, mode=mode: conn.execute(row + sql.SQL(" " + mode)).fetchall())
        got = arena.under(answer, scenario, hold)
        found[mode] = "waits" if got.waited else ("takes" if took(got) else "passes over")
    return found
