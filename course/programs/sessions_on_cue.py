"""Sessions on cue: several sessions' statements played in an order written down in advance, so that the
races of labs 03, 06, 08 and 11 happen when the learner runs the cell, not when luck allows, and their
table shows who waited for whom.

This is a demo's script, every statement ours. It is not the checks' adversary (course.grading's
interleave, which runs a learner's answer and makes another session act between its statements): the
same mechanism of watching lock waits, for another purpose, so under another name.

PostgreSQL's own isolation tester (src/test/isolation) is the model: each session runs its steps in
order; a step that has to wait for another session's lock is noted as waiting, and the next step of the
schedule runs meanwhile (usually the one that releases the lock). So a schedule can say exactly "A
claims the job, B asks for it, A commits", and we see what B's statement does once A's lock is gone.

    steps = sessions_on_cue.run(conninfo, [
        ("A", "SELECT id FROM jobs ORDER BY run_at LIMIT 1 FOR UPDATE"),
        ("B", "SELECT id FROM jobs ORDER BY run_at LIMIT 1 FOR UPDATE"),   # waits for A's lock
        ("A", "COMMIT"),                                                   # ... and goes on here
    ], isolation={"B": "repeatable read"})
    print(sessions_on_cue.table(steps))

Each session's connection is named `on-cue-<session>` (pg_stat_activity's application_name), so a
step of another session can look at it. Every session works in one transaction, begun by its first statement (psycopg's default) and ended by
a "COMMIT" or "ROLLBACK" step, or rolled back when the run ends. `isolation` sets a session's level
(PostgreSQL's default is READ COMMITTED). A step that raises ends its session's transaction in error:
the step's result says what was raised, and the session's later steps are skipped until a "ROLLBACK".
"""

from __future__ import annotations

import queue as queue_module
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import psycopg
from psycopg import IsolationLevel

from course.errors import InvalidArgument, first_line

LEVELS = {"read committed": IsolationLevel.READ_COMMITTED, "repeatable read": IsolationLevel.REPEATABLE_READ,
          "serializable": IsolationLevel.SERIALIZABLE}
WAIT_TIMEOUT_S = 30.0  # no step of a lab's schedule takes this long unless something is wrong


@dataclass
class Step:
    session: str
    sql: str
    params: tuple | dict = ()
    waited: bool = False  # it had to wait for another session's lock before it could finish
    blocked_by: list[str] = field(default_factory=list)  # the sessions it waited for, as first seen
    rows: list = field(default_factory=list)  # what it returned (RETURNING, SELECT)
    rowcount: int = -1
    error: str | None = None  # "SerializationFailure: could not serialize access ..."
    skipped: bool = False  # its session's transaction had already failed

    @property
    def outcome(self) -> str:
        if self.skipped:
            return "skipped: its transaction had already failed"
        if self.error:
            return f"error: {self.error}"
        if self.sql.strip().upper() in ("COMMIT", "ROLLBACK", "BEGIN"):
            return "done"
        if self.rows:
            return f"{len(self.rows)} row(s): {', '.join(map(_brief, self.rows))}"
        return f"{self.rowcount} row(s)" if self.rowcount >= 0 else "done"


def _brief(row) -> str:
    values = [value.strftime("%Y-%m-%d %H:%M") if hasattr(value, "strftime") else str(value) for value in row]
    return values[0] if len(values) == 1 else "(" + ", ".join(values) + ")"


class _Session(threading.Thread):
    """One connection and a thread that runs its steps, one at a time, as they are handed to it."""

    def __init__(self, name: str, conninfo: str, isolation: str):
        super().__init__(name=f"on-cue-{name}", daemon=True)
        self.label = name
        self.conn = psycopg.connect(conninfo, autocommit=False, application_name=f"on-cue-{name}")
        self.conn.isolation_level = LEVELS[isolation]
        self.pid = self.conn.info.backend_pid
        self.todo: queue_module.Queue = queue_module.Queue()
        self.failed = False
        self.start()

    def run(self) -> None:
        while (item := self.todo.get()) is not None:
            step, done = item
            try:
                if step.sql.strip().upper() == "COMMIT":
                    self.conn.commit()
                elif step.sql.strip().upper() == "ROLLBACK":
                    self.conn.rollback()
                    self.failed = False
                else:
                    cursor = self.conn.execute(step.sql, step.params or None)
                    step.rowcount = cursor.rowcount
                    step.rows = cursor.fetchall() if cursor.description else []
            except psycopg.Error as error:
                step.error = f"{type(error).__name__}: {first_line(error)}"
                self.failed = True
            finally:
                done.set()

    def close(self) -> None:
        self.todo.put(None)
        self.join(timeout=WAIT_TIMEOUT_S)
        try:
            self.conn.rollback()
        finally:
            self.conn.close()


def run(conninfo: str, schedule: Sequence[tuple], *, isolation: Mapping[str, str] | None = None,
        watcher: psycopg.Connection | None = None, pause_s: float = 0.0) -> list[Step]:
    """Run `schedule`, a list of (session, sql) or (session, sql, params), in that order; return its steps.

    A step that waits for a lock is left waiting, and the schedule goes on; a later step of the same
    session starts only once it has finished. `pause_s` waits that long after each step (for a live
    view to catch up)."""
    isolation = dict(isolation or {})
    for name, level in isolation.items():
        if level not in LEVELS:
            raise InvalidArgument(f"isolation of {name!r} must be one of {', '.join(LEVELS)}; got {level!r}.")
    steps = [Step(*item) if len(item) == 3 else Step(item[0], item[1]) for item in schedule]
    sessions: dict[str, _Session] = {}
    running: dict[str, tuple[Step, threading.Event]] = {}
    own_watcher = watcher is None
    watcher = watcher or psycopg.connect(conninfo, autocommit=True)
    try:
        for step in steps:
            if step.session not in sessions:
                sessions[step.session] = _Session(step.session, conninfo,
                                                  isolation.get(step.session, "read committed"))
            session = sessions[step.session]
            if step.session in running:  # its previous step is still waiting: let it finish first
                _finish(*running.pop(step.session), session, sessions, watcher)
            if session.failed and step.sql.strip().upper() != "ROLLBACK":
                step.skipped = True
                continue
            done = threading.Event()
            session.todo.put((step, done))
            if not _settle(step, done, session, sessions, watcher):
                running[step.session] = (step, done)
            if pause_s:
                time.sleep(pause_s)
        for name, (step, done) in list(running.items()):
            _finish(step, done, sessions[name], sessions, watcher)
    finally:
        for session in sessions.values():
            session.close()
        if own_watcher:
            watcher.close()
    return steps


def _blockers(session: _Session, sessions: Mapping[str, _Session], watcher: psycopg.Connection) -> list[str] | None:
    """The sessions this one waits for (by name; others' pids as numbers), or None when it is not waiting."""
    row = watcher.execute("SELECT wait_event_type = 'Lock', pg_blocking_pids(%s) FROM pg_stat_activity "
                          "WHERE pid = %s", [session.pid, session.pid]).fetchone()
    if not row or not row[0]:
        return None
    names = {s.pid: name for name, s in sessions.items()}
    return [names.get(pid, str(pid)) for pid in row[1]]


def _settle(step: Step, done: threading.Event, session: _Session, sessions, watcher) -> bool:
    """Wait until the step has finished (True) or waits for a lock (False)."""
    deadline = time.monotonic() + WAIT_TIMEOUT_S
    while time.monotonic() < deadline:
        if done.wait(0.01):
            return True
        blockers = _blockers(session, sessions, watcher)
        if blockers is not None:
            step.waited, step.blocked_by = True, blockers
            return False
    raise TimeoutError(f"session {step.session}'s step {step.sql!r} neither finished nor waited for a lock "
                       f"within {WAIT_TIMEOUT_S:g} s")


def _finish(step: Step, done: threading.Event, session: _Session, sessions, watcher) -> None:
    if not done.wait(WAIT_TIMEOUT_S):
        raise TimeoutError(f"session {step.session}'s step {step.sql!r} still waits after {WAIT_TIMEOUT_S:g} s "
                           f"(for {_blockers(session, sessions, watcher)}): the schedule never releases its lock")


def table(steps: Sequence[Step], width: int = 64) -> str:
    """The schedule as it ran: one line per step, in order, with what each did."""
    lines = []
    names = max((len(step.session) for step in steps), default=1)
    for number, step in enumerate(steps, start=1):
        sql = " ".join(" ".join(line for line in step.sql.splitlines() if not line.lstrip().startswith("--")).split())
        sql = sql if len(sql) <= width else sql[:width - 1] + "…"
        waited = f"  (waited for {', '.join(step.blocked_by)})" if step.waited else ""
        lines.append(f"{number:>2}. {step.session + ':':<{names + 1}} {sql:<{width}}  -> {step.outcome}{waited}")
    return "\n".join(lines)
