"""The scheduler: recurring jobs ("release unpaid holds every 5 minutes", "invoices every night at
02:00"), enqueued from a table of schedules in PostgreSQL by a process that runs beside the workers.

    install(conn)                       the queue's tables and the scheduler's (course/core/sql/scheduler.sql)
    add(conn, task, every=, first=, on_missed=)    a schedule: a slot every `every`, from `first` on
    tick(conn, now)                     enqueue each slot that is due, once, whoever else is ticking
    set_clock / advance_clock           the simulated clock a lab moves by hand
    run(conninfo, name=...)             the scheduler process's loop: tick until SIGTERM, on the real clock
    spawn(schema, name=...)             a scheduler process: `python -m course.core.scheduler --name ...`
    start(schema, count) / stop(...)    `count` of them on the simulated clock, as on `count` app servers

Lab 08's examples, StayHub's two recurring jobs and their tables, are course/programs/stayhub_recurring.py;
its foil, a crontab on every server, is course/programs/crontab.py.

One rule makes it safe to run a scheduler on every app server. A slot's job is enqueued in the same
transaction as a row in `schedule_runs`, whose primary key is (task, slot). However many schedulers
tick at the same moment, one insert wins; the others insert nothing, so they enqueue nothing. The row
outlives the job (the jobs table forgets a job once it is done), so a slot is never enqueued twice.

Missed slots (every scheduler down during a deploy, or the clock jumps) are never silently lost: each
schedule names a policy. `catch_up` enqueues every missed slot, oldest first: each night needs its own
invoices. `skip` enqueues the latest slot only and records the others as skipped: one release of the
unpaid holds does the work of all the missed ones.

Time comes from a clock: the real one (what a scheduler in production reads, and the default), or a
simulated one kept in the database (`scheduler_clock`) that a lab or a check moves by hand, so a night
passes in a second. Every scheduler process reads the same simulated clock, and wakes when it moves
(NOTIFY on 'scheduler:<schema>').

Slots are a fixed period apart, from `first` on: "every 5 minutes", "every day at 02:00 UTC". Calendar
rules (the last day of a month, 02:00 in a time zone with daylight saving) are not covered.

Why one module: the schedules, the once-per-slot rule, the simulated clock and the scheduler process are
one mechanism; the process only loops over tick(), and tick() reads the clock and the schedules.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import psycopg
from psycopg import sql as pgsql
from psycopg.conninfo import make_conninfo
from psycopg.pq import TransactionStatus
from psycopg.rows import class_row

from course.infra import db, processes
from course.core import queue, sql
from course.core import arguments
from course.errors import CourseError, DatabaseUnavailable, InvalidArgument, first_line

log = logging.getLogger("course.core.scheduler")

CATCH_UP, SKIP = "catch_up", "skip"
POLICIES = (CATCH_UP, SKIP)
SHARED = "shared"  # how this scheduler decides what to enqueue: one decision a slot, shared by all of them
SIMULATED, REAL = "simulated", "real"  # the two clocks
MAX_SLOTS = 100_000  # more due slots than this in one tick is a mistake (a `first` years ago?), not work
DISCONNECTED = (psycopg.OperationalError, psycopg.InterfaceError)


@dataclass(frozen=True)
class Schedule:
    task: str  # 'nightly_invoices'
    job_type: str  # the job it enqueues
    queue: str
    payload: dict  # every job gets this, plus {"slot": "<ISO time>"}
    every: timedelta
    first: datetime  # the first slot; the others are first + k × every
    on_missed: str  # 'catch_up' or 'skip'


@dataclass(frozen=True)
class Plan:
    """What to do with the slots that are due: enqueue `run`, record `skip` as skipped."""

    run: list[datetime]
    skip: list[datetime]


@dataclass(frozen=True)
class SlotRun:
    """A row of schedule_runs: a slot some scheduler decided."""

    task: str
    slot: datetime
    outcome: str  # 'enqueued' or 'skipped'
    job_id: int | None
    decided_by: str  # the deciding connection's application_name (a scheduler's name)
    decided_at: datetime


@dataclass(frozen=True)
class Heartbeat:
    name: str
    pid: int
    mode: str
    clock_seen: datetime | None  # the last clock time it finished a tick for
    ticks: int
    errors: int
    last_error: str | None
    seen_at: datetime


# -- schedules -------------------------------------------------------------------------------------


def install(conn: psycopg.Connection) -> None:
    """The queue's tables and the scheduler's, in the connection's schema (running it twice is fine)."""
    queue.install(conn)
    conn.execute(sql.query("scheduler", "install"))


def add(conn: psycopg.Connection, task: str, *, every: timedelta, first: datetime, on_missed: str,
        job_type: str | None = None, payload: dict | None = None, queue_name: str = queue.DEFAULT_QUEUE) -> Schedule:
    """Add a schedule (or change the one with this task name): a slot at `first`, then every `every`.

    `on_missed` says what happens to slots that pass while no scheduler runs: 'catch_up' (enqueue each
    of them) or 'skip' (enqueue the latest, record the others as skipped).
    """
    arguments.name("task", task, then="Nothing was added.")
    job_type = arguments.name("job type", job_type or task, then="Nothing was added.")
    if not isinstance(every, timedelta) or every < timedelta(seconds=1):
        raise InvalidArgument(f"every must be a timedelta of a second or more, e.g. timedelta(minutes=5); "
                              f"got {every!r}. Nothing was added.")
    if not isinstance(first, datetime) or first.tzinfo is None:
        raise InvalidArgument(f"first must be a datetime with a time zone, e.g. datetime(2026, 3, 14, 2, 0, "
                              f"tzinfo=UTC); got {first!r}. Nothing was added.")
    _policy(on_missed)
    if payload is not None and "slot" in payload:
        raise InvalidArgument("payload must not have a 'slot' key: the scheduler adds each job's slot itself.")
    params = {"task": task, "job_type": job_type,
              "queue": arguments.name("queue", queue_name, then="Nothing was added."),
              "payload": queue.payload_json(payload or {}), "every": every, "first": first,
              "on_missed": on_missed}
    with conn.cursor(row_factory=class_row(Schedule)) as cursor:
        return cursor.execute(sql.query("scheduler", "add_schedule"), params).fetchone()


def schedules(conn: psycopg.Connection) -> list[Schedule]:
    with conn.cursor(row_factory=class_row(Schedule)) as cursor:
        return cursor.execute(sql.query("scheduler", "schedules")).fetchall()


def _policy(on_missed: object) -> str:
    if on_missed not in POLICIES:
        raise InvalidArgument(f"on_missed must be 'catch_up' or 'skip'; got {on_missed!r}. A scheduler that "
                              "guesses what to do with missed runs loses them silently.")
    return on_missed


# -- which slots are due, and what to do with them --------------------------------------------------


def slots_between(schedule: Schedule, after: datetime | None, until: datetime) -> list[datetime]:
    """The schedule's slots s with after < s <= until (all from the first slot when `after` is None)."""
    if until < schedule.first:
        return []
    start = 0 if after is None or after < schedule.first else (after - schedule.first) // schedule.every + 1
    stop = (until - schedule.first) // schedule.every
    if stop - start + 1 > MAX_SLOTS:
        raise InvalidArgument(f"{schedule.task}: {stop - start + 1:,} slots are due at once (every "
                              f"{schedule.every}, since {_hhmm(schedule.first)}): is `first` far in the past, or "
                              "the clock far in the future? Nothing was enqueued.")
    return [schedule.first + k * schedule.every for k in range(start, stop + 1)]


def last_slot(conn: psycopg.Connection, task: str) -> datetime | None:
    """The latest slot any scheduler has decided for this task (enqueued or skipped), or None."""
    return conn.execute(sql.query("scheduler", "last_slot"), {"task": task}).fetchone()[0]


def due_slots(conn: psycopg.Connection, schedule: Schedule, now: datetime) -> list[datetime]:
    """The slots that have come (slot <= now) since the latest one decided, oldest first."""
    return slots_between(schedule, last_slot(conn, schedule.task), now)


def plan(due: Sequence[datetime], on_missed: str) -> Plan:
    """The missed-run policy. One slot due is simply run; when several are due, some were missed:
    catch_up runs each of them, oldest first; skip runs the latest and records the others as skipped."""
    due = list(due)
    if _policy(on_missed) == CATCH_UP:
        return Plan(run=due, skip=[])
    return Plan(run=due[-1:], skip=due[:-1])


def job_payload(schedule: Schedule, slot: datetime) -> dict:
    """The job names its slot, so the work is for *that* night, not for whenever the job happens to run."""
    return {**schedule.payload, "slot": slot.astimezone(UTC).isoformat()}


def enqueue_slot(conn: psycopg.Connection, schedule: Schedule, slot: datetime) -> int | None:
    """Enqueue the slot's job unless another scheduler already has: the job's id, or None."""
    key = {"task": schedule.task, "slot": slot}
    with conn.transaction():  # the claim and the job commit together, or neither does
        if conn.execute(sql.query("scheduler", "claim_slot"), key).fetchone() is None:
            return None  # another scheduler won this slot (its transaction has committed)
        job_id = queue.enqueue(conn, schedule.job_type, job_payload(schedule, slot), queue=schedule.queue)
        conn.execute(sql.query("scheduler", "set_job"), {**key, "job_id": job_id})
    return job_id


def skip_slot(conn: psycopg.Connection, schedule: Schedule, slot: datetime) -> bool:
    """Record a missed slot as skipped (False if some scheduler had already decided it)."""
    row = conn.execute(sql.query("scheduler", "skip_slot"), {"task": schedule.task, "slot": slot}).fetchone()
    return row is not None


def skip_slots(conn: psycopg.Connection, schedule: Schedule, slots: Sequence[datetime]) -> int:
    """Record many missed slots as skipped, in one statement; how many were not decided before."""
    if not slots:
        return 0
    return len(conn.execute(sql.query("scheduler", "skip_slots"),
                            {"task": schedule.task, "slots": list(slots)}).fetchall())


def tick(conn: psycopg.Connection, now: datetime) -> list[int]:
    """One look at the clock: for every schedule, enqueue (once) or skip each due slot, by its policy.

    Returns the ids of the jobs this call enqueued. Safe to run in many processes at once: each slot is
    decided by exactly one of them. Skipped slots are written first (they are all older than the slot
    that runs), then run slots oldest first, each in its own transaction, so a tick that fails half-way
    leaves no gap: the next tick starts after the latest slot decided.
    """
    enqueued = []
    for schedule in schedules(conn):
        decision = plan(due_slots(conn, schedule, now), schedule.on_missed)
        skip_slots(conn, schedule, decision.skip)
        for slot in decision.run:
            job_id = enqueue_slot(conn, schedule, slot)
            if job_id is not None:
                enqueued.append(job_id)
    return enqueued


def runs(conn: psycopg.Connection, task: str | None = None) -> list[SlotRun]:
    """The decided slots (of one task, or all), in order."""
    with conn.cursor(row_factory=class_row(SlotRun)) as cursor:
        return cursor.execute(sql.query("scheduler", "runs"), {"task": task}).fetchall()


# -- the simulated clock ---------------------------------------------------------------------------


def clock_now(conn: psycopg.Connection) -> datetime | None:
    row = conn.execute(sql.query("scheduler", "clock_now")).fetchone()
    return row[0] if row else None


def set_clock(conn: psycopg.Connection, at: datetime, *, wait_for: Sequence[processes.Child] = (),
              timeout: float = 20.0) -> datetime:
    """Move the simulated clock to `at` (forwards or back) and wake the schedulers.

    With `wait_for`, return only once each of those scheduler processes has finished its tick at `at`.
    """
    if not isinstance(at, datetime) or at.tzinfo is None:
        raise InvalidArgument(f"the clock needs a datetime with a time zone, e.g. datetime(2026, 3, 14, 2, 0, "
                              f"tzinfo=UTC); got {at!r}.")
    now = conn.execute(sql.query("scheduler", "set_clock"), {"now": at}).fetchone()[0]
    if wait_for:
        wait_for_ticks(conn, wait_for, now, timeout=timeout)
    return now


def advance_clock(conn: psycopg.Connection, by: timedelta, *, wait_for: Sequence[processes.Child] = (),
                  timeout: float = 20.0) -> datetime:
    now = clock_now(conn)
    if now is None:
        raise CourseError("the simulated clock has not been set yet: call set_clock(conn, datetime(...)) first.")
    return set_clock(conn, now + by, wait_for=wait_for, timeout=timeout)


def heartbeats(conn: psycopg.Connection) -> list[Heartbeat]:
    with conn.cursor(row_factory=class_row(Heartbeat)) as cursor:
        return cursor.execute(sql.query("scheduler", "heartbeats")).fetchall()


def wait_for_ticks(conn: psycopg.Connection, schedulers: Sequence[processes.Child], at: datetime,
                   timeout: float = 20.0) -> None:
    """Wait until every one of these scheduler processes has finished a tick at clock time `at` or later."""
    bound = processes.HangBound(timeout)
    while True:
        seen = {beat.name: beat for beat in heartbeats(conn)}
        behind = [child for child in schedulers
                  if child.name not in seen or seen[child.name].clock_seen is None or seen[child.name].clock_seen < at]
        if not behind:
            return
        for child in behind:
            if not child.alive():
                raise CourseError(f"scheduler {child.name!r} has stopped (exit code {child.wait()}); its log "
                                  f"ends with:\n{child.log_tail(12)}")
        if bound.passed():
            late = behind[0].name
            beat = seen.get(late)
            why = f"; its last error: {beat.last_error}" if beat and beat.last_error else ""
            raise CourseError(f"scheduler {late!r} has not finished a tick at {_hhmm(at)} within {bound}{why}")
        time.sleep(0.02)


def _hhmm(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


# -- the scheduler process -------------------------------------------------------------------------


def run(conninfo: str, *, name: str, clock: str = REAL,
        tick_fn: Callable[[psycopg.Connection, datetime], object] = tick, mode: str = SHARED,
        poll_s: float = 0.05, every_s: float = 1.0) -> int:
    """Tick until SIGTERM or SIGINT; return the exit code.

    With the simulated clock it ticks each time the clock moves (woken by NOTIFY, or noticing within
    `poll_s`); with the real one, every `every_s` seconds. A tick that raises is logged, counted in the
    heartbeat and tried again shortly: a scheduler must outlive a bad moment of its database. `tick_fn`
    decides what each tick enqueues (tick, unless a lab runs its own); `mode` names it in the heartbeat.
    """
    if clock not in (SIMULATED, REAL):
        raise InvalidArgument(f"clock must be 'simulated' or 'real'; got {clock!r}.")
    stopping = False

    def stop(*_signal_args) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    conninfo = make_conninfo(conninfo, application_name=name)
    beat = {"name": name, "pid": os.getpid(), "mode": mode, "clock_seen": None, "ticks": 0, "errors": 0,
            "last_error": None}
    conn = listener = None
    ticked_at = None  # the clock time of the last successful tick
    log.info("scheduler %s: mode %s, %s clock", name, mode, clock)
    while not stopping:
        try:
            if conn is None or conn.closed or conn.broken:
                conn, listener = _connect(conninfo, listen=clock == SIMULATED)
                conn.execute(sql.query("scheduler", "heartbeat"), beat)
            now = clock_now(conn) if clock == SIMULATED else datetime.now(UTC)
            if now is not None and now != ticked_at:
                enqueued = tick_fn(conn, now)
                ticked_at = now
                beat.update(clock_seen=now, ticks=beat["ticks"] + 1, last_error=None)
                conn.execute(sql.query("scheduler", "heartbeat"), beat)
                if enqueued:
                    log.info("scheduler %s: tick at %s enqueued %s", name, _hhmm(now), enqueued)
        except DISCONNECTED as error:
            log.warning("scheduler %s: database connection lost (%s); reconnecting", name, first_line(error))
            _close(conn, listener)
            conn = listener = None
            time.sleep(0.2)
            continue
        except Exception as error:  # a bad tick (ours or a learner's) must not end the scheduler
            log.exception("scheduler %s: tick failed; trying again shortly", name)
            beat.update(errors=beat["errors"] + 1, last_error=f"{type(error).__name__}: {first_line(error)}"[:500])
            try:
                if conn is None:
                    raise psycopg.InterfaceError("no connection")
                if conn.info.transaction_status != TransactionStatus.IDLE:
                    conn.rollback()
                conn.execute(sql.query("scheduler", "heartbeat"), beat)
            except psycopg.Error:
                _close(conn, listener)
                conn = listener = None
            time.sleep(0.1)
            continue
        if clock == SIMULATED:
            for _ in listener.notifies(timeout=poll_s, stop_after=1):
                pass
        else:
            time.sleep(every_s)
    _close(conn, listener)
    log.info("scheduler %s: stopped after %d tick(s)", name, beat["ticks"])
    return 0


def _connect(conninfo: str, *, listen: bool) -> tuple[psycopg.Connection, psycopg.Connection | None]:
    conn = psycopg.connect(conninfo, autocommit=True, connect_timeout=5)
    listener = None
    if listen:
        listener = psycopg.connect(conninfo, autocommit=True, connect_timeout=5)
        schema = listener.execute("SELECT current_schema()").fetchone()[0]
        listener.execute(pgsql.SQL("LISTEN {}").format(pgsql.Identifier(f"scheduler:{schema}")))
    return conn, listener


def _close(*conns) -> None:
    for conn in conns:
        if conn is not None and not conn.closed:
            conn.close()


def spawn(schema: str | None = None, *, name: str = "scheduler", clock: str = REAL, dsn: str | None = None,
          env: dict[str, str] | None = None, program: str = "course.core.scheduler") -> processes.Child:
    """Start `python -m course.core.scheduler` (or another `program` taking its flags) as a child process,
    on the course database (or `dsn`).

    Its earlier heartbeat, if any, is forgotten first, so waiting for its ticks waits for this process.
    """
    if dsn is None:
        dsn = db.conninfo(schema)
    elif schema is not None:
        dsn = make_conninfo(dsn, options=f"-c search_path={schema}")
    with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql.query("scheduler", "forget_heartbeat"), {"name": name})
    return processes.python(name, program, "--name", name, "--clock", clock, "--dsn", dsn, env=env)


def start(schema: str, count: int, *, prefix: str = "server", timeout: float = 30.0,
          program: str = "course.core.scheduler") -> list[processes.Child]:
    """`count` scheduler processes on the simulated clock, as on `count` app servers (a lab's set-up);
    returns once each has ticked the clock."""
    children = [spawn(schema, name=f"{prefix}-{n + 1}", clock=SIMULATED, program=program) for n in range(count)]
    try:
        with db.connect(schema) as conn:
            now = clock_now(conn)
            if now is not None:
                wait_for_ticks(conn, children, now, timeout=timeout)
    except BaseException:
        stop(children)
        raise
    return children


def stop(children: Sequence[processes.Child]) -> list[int]:
    """SIGTERM each scheduler process and wait for it; the exit codes."""
    return [child.terminate(timeout=10) for child in children]


# -- the program -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None, *, prog: str = "python -m course.core.scheduler",
         description: str = "Enqueue recurring jobs from the schedules table, once per slot.",
         tick_fn: Callable[[psycopg.Connection, datetime], object] = tick, mode: str = SHARED) -> int:
    """The scheduler program; a lab's variant (course/programs/crontab.py) passes its own tick_fn."""
    args = parser(prog, description).parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    try:
        conninfo = args.dsn or db.conninfo(args.schema)
        return run(conninfo, name=args.name, clock=args.clock, tick_fn=tick_fn, mode=mode, every_s=args.every_s)
    except (CourseError, DatabaseUnavailable) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def parser(prog: str = "python -m course.core.scheduler",
           description: str = "Enqueue recurring jobs from the schedules table, once per slot.",
           ) -> argparse.ArgumentParser:
    """The program's flags (a lab's variant passes its own name and description)."""
    p = argparse.ArgumentParser(prog=prog, description=description)
    p.add_argument("--name", default=f"scheduler-{os.getpid()}", help="how it shows in heartbeats and logs")
    p.add_argument("--clock", choices=[SIMULATED, REAL], default=REAL,
                   help="real time, or the simulated clock in the scheduler_clock table")
    p.add_argument("--schema", help="the schema holding the tables (default: public)")
    p.add_argument("--dsn", help="connection string (default: the course database)")
    p.add_argument("--every-s", type=float, default=1.0, help="seconds between ticks on the real clock")
    return p


if __name__ == "__main__":
    raise SystemExit(main())
