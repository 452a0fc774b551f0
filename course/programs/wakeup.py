"""Lab 03: how a worker hears of a new job. LISTEN/NOTIFY, what it promises and what it does not, and
the polling that covers for it, measured.

The course's enqueue runs `SELECT pg_notify('jobs:<schema>', <queue>)` in the job's own transaction
(course/core/sql/queue.sql), and a worker keeps one connection that LISTENs on that channel. Three
facts about NOTIFY decide how a worker must use it:

    sent at commit      a listener hears nothing while the enqueue's transaction is open, and nothing
                        at all if it rolls back: no worker wakes for a job that does not exist
    not stored          a notification goes to the sessions listening at that moment; one that starts
                        listening a second later never hears of it, though the job waits in the table
    lost when nobody    a worker whose listening connection dropped misses every job enqueued until it
    listens             is back: so it claims once after every LISTEN, and polls every second anyway

    heard = wakeup.what_notify_promises("lab03_wake")
    delays = wakeup.wake_delays("lab03_wake", listen=False, poll_interval_s=1.0, jobs=12, seed=3)
    wakeup.polls_per_second("lab03_wake", intervals=(1.0, 0.05))   # {1.0: ~1, 0.05: ~20}

A worker process of the course runs `handlers` below: a "wake" job writes down the moment a worker
started it (course/infra/eventlog.py), so the delay from enqueue to start is measured on real workers.
"""

from __future__ import annotations

import os
import random
import secrets
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql as pgsql

from course.core import queue, worker
from course.core.worker import Registry
from course.errors import InvalidArgument
from course.infra import db, eventlog, processes

APP = "course.programs.wakeup:handlers"
LOG_ENV = "WAKEUP_LOG"
READY_TIMEOUT_S = 60.0

handlers = Registry()


@handlers.handler("wake", payload={"n": int})
def wake(job) -> None:
    """Write down when a worker started this job; nothing else."""
    eventlog.record(os.environ[LOG_ENV], kind="started", job=job.id, at=time.time())


def channel(schema: str) -> str:
    return f"jobs:{schema}"


# -- what NOTIFY promises --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Heard:
    """Notifications one listener received, step by step (see what_notify_promises)."""

    while_open: int  # the enqueue's transaction still open
    after_commit: int  # ... then committed
    after_rollback: int  # another enqueue, rolled back
    late_listener: int  # a listener that began listening after three enqueues had committed
    jobs_waiting: int  # the jobs in the table at the end: the committed ones


def _heard(conn: psycopg.Connection, within_s: float, expect: int | None = None) -> int:
    """How many notifications `conn` receives within `within_s` (at most `expect`, if given)."""
    count = 0
    for _ in conn.notifies(timeout=within_s, stop_after=expect):
        count += 1
    return count


def what_notify_promises(schema: str, *, quiet_s: float = 0.4) -> Heard:
    """Enqueue jobs in `schema` (its queue's tables must exist, and be empty) while a listener listens.

    "Nothing heard" means nothing within `quiet_s`; a notification that is sent arrives in milliseconds."""
    with db.connect(schema) as producer, db.connect(schema) as listener:
        listener.execute(pgsql.SQL("LISTEN {}").format(pgsql.Identifier(channel(schema))))
        with producer.transaction():
            queue.enqueue(producer, "wake", {"n": 1})
            while_open = _heard(listener, quiet_s)
        after_commit = _heard(listener, 5.0, expect=1)
        with producer.transaction(force_rollback=True):
            queue.enqueue(producer, "wake", {"n": 2})
        after_rollback = _heard(listener, quiet_s)
    with db.connect(schema) as producer:
        for n in range(3, 6):
            queue.enqueue(producer, "wake", {"n": n})  # each commits: nobody is listening now
        with db.connect(schema) as late:
            late.execute(pgsql.SQL("LISTEN {}").format(pgsql.Identifier(channel(schema))))
            late_listener = _heard(late, quiet_s)
        waiting = producer.execute("SELECT count(*) FROM jobs").fetchone()[0]
    return Heard(while_open, after_commit, after_rollback, late_listener, waiting)


# -- how long a job waits for a worker to notice it --------------------------------------------------------


@dataclass(frozen=True)
class Delays:
    """From each job's enqueue (just before its commit) to a worker starting it, in seconds."""

    how: str
    seconds: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def slowest(self) -> float:
        return max(self.seconds)


def _spawn_worker(schema: str, *, listen: bool, poll_interval_s: float, log: Path) -> tuple[str, processes.Child]:
    name = f"wakeup-{secrets.token_hex(4)}"  # application_name keeps 63 bytes: no schema in it
    return name, worker.spawn(APP, dsn=db.conninfo(schema, application_name=name), listen=listen,
                              poll_interval_s=poll_interval_s, concurrency=1, name=name, env={LOG_ENV: str(log)})


def _wait_ready(name: str, child: processes.Child, listen: bool) -> None:
    """Until the worker has run its first claim (and, if it listens, opened its LISTEN connection)."""
    def ready() -> bool:
        if not child.alive():
            raise RuntimeError(f"worker {name} exited with code {child.wait()}:\n{child.log_tail(12)}")
        with db.connect() as conn:
            rows = conn.execute("SELECT query FROM pg_stat_activity WHERE application_name = %s", [name]).fetchall()
        claimed = any(q.lstrip().startswith(("WITH next", "-- Take")) for (q,) in rows)
        listening = any(q.startswith("LISTEN") for (q,) in rows)
        return claimed and (listening or not listen)

    try:
        processes.wait_until(ready, READY_TIMEOUT_S, interval=0.05, what=f"worker {name} ready")
    except BaseException:
        child.kill()
        raise


def _start_worker(schema: str, *, listen: bool, poll_interval_s: float, log: Path) -> processes.Child:
    name, child = _spawn_worker(schema, listen=listen, poll_interval_s=poll_interval_s, log=log)
    _wait_ready(name, child, listen)
    return child


def wake_delays(schema: str, *, listen: bool, poll_interval_s: float, jobs: int = 12, mean_gap_s: float = 0.25,
                seed: int = 1) -> Delays:
    """Start one worker (LISTENing or not, polling every `poll_interval_s`), enqueue `jobs` jobs at seeded
    random moments (`mean_gap_s` apart on average), and measure how long each waited to be started."""
    if not 0 < poll_interval_s <= 10:
        raise InvalidArgument(f"poll_interval_s must be more than 0 and at most 10; got {poll_interval_s!r}.")
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="wakeup-") as folder, db.connect(schema) as conn:
        conn.execute("DELETE FROM jobs")
        log = Path(folder) / "started.jsonl"
        child = _start_worker(schema, listen=listen, poll_interval_s=poll_interval_s, log=log)
        try:
            enqueued: dict[int, float] = {}
            for n in range(jobs):
                time.sleep(rng.expovariate(1 / mean_gap_s))
                at = time.time()
                enqueued[queue.enqueue(conn, "wake", {"n": n})] = at
            processes.wait_until(lambda: len(eventlog.read(log)) >= jobs, 30 + 2 * poll_interval_s, interval=0.02,
                                 what="every job started")
        finally:
            child.terminate()
        started = {record["job"]: record["at"] for record in eventlog.read(log)}
    how = ("LISTEN/NOTIFY" if listen else "no LISTEN") + f", polling every {poll_interval_s:g} s"
    return Delays(how, [started[job] - at for job, at in enqueued.items()])


# -- what polling costs ---------------------------------------------------------------------------------


def polls_per_second(schema: str, *, intervals: tuple[float, ...] = (1.0, 0.05),
                     seconds: float = 2.0) -> dict[float, float]:
    """For each poll interval, one worker that does not LISTEN, on an empty queue of its own (a schema
    `<schema>_poll<n>`, made and dropped here), all at the same time: how many claims each runs a second,
    from the scans of its jobs table that PostgreSQL's statistics count over `seconds`."""
    for interval in intervals:
        if not 0 < interval <= 10:
            raise InvalidArgument(f"each poll interval must be more than 0 and at most 10; got {interval!r}.")
    schemas = [f"{schema}_poll{n}" for n in range(len(intervals))]
    started: list[tuple[str, processes.Child]] = []
    with tempfile.TemporaryDirectory(prefix="wakeup-") as folder, db.connect() as conn:
        try:
            for name in schemas:
                db.reset_schema(name)
                with db.connect(name) as setup:
                    queue.install(setup)
            for name, interval in zip(schemas, intervals):
                started.append(_spawn_worker(name, listen=False, poll_interval_s=interval, log=Path(folder) / "log"))
            for name, child in started:
                _wait_ready(name, child, listen=False)
            time.sleep(1.2)  # statistics reach the server at most once a second per session
            before, began = [_scans(conn, name) for name in schemas], time.monotonic()
            time.sleep(seconds)
            for _, child in started:
                child.terminate()  # its last statistics are sent as it exits
            after, ended = [_scans(conn, name) for name in schemas], time.monotonic()
        finally:
            for _, child in started:
                if child.alive():
                    child.kill()
            for name in schemas:
                db.drop_schema(name)
    return {interval: (a - b) / (ended - began) for interval, a, b in zip(intervals, after, before)}


def _scans(conn: psycopg.Connection, schema: str) -> int:
    row = conn.execute("SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) FROM pg_stat_user_tables "
                       "WHERE schemaname = %s AND relname = 'jobs'", [schema]).fetchone()
    return row[0] if row else 0
