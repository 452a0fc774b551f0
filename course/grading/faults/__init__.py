"""The fault injector: run a learner's code in real worker processes, break things on purpose, and check
what must survive.

A run starts worker processes (course.core.worker.Worker, in `python -m course.grading.faults.worker`) on a
sandbox schema, with the learner's handler (and, for lab 04, the learner's lease extension). While they
work it injects the faults asked for:

    kill_after_work   SIGKILL a worker after a job's work is done, before its ack (the classic duplicate)
    kill_mid_work     SIGKILL a worker while a job runs
    drop_connections  terminate the workers' database connections from the server side, now and then

Killed workers are restarted, like a supervisor would. Every claim, start, finish, ack and kill is
written to a history; when the queue is empty (or time is up) the check reads the history and asserts
invariants: no job lost, no duplicate effect, poison jobs dead-lettered at max attempts. On a failure
it prints the seed that replays the run and a timeline of the first job that broke the rule.
"""

from __future__ import annotations

import os
import random
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


from course.infra import eventlog, processes
from course.core import queue
from course.grading.scratch import ScratchSchema
from course.grading.trial import Trial

TASK = "task"  # the job type every fault run uses


class WorkerCrashed(Exception):
    """A worker died of something other than our SIGKILL: the code under test cannot even run there. The
    learner's doing (a handler that ends its process), so a failed check, not a problem of the course's."""


@dataclass(frozen=True)
class Faults:
    kill_after_work: float = 0.0  # probability per finished job
    kill_mid_work: float = 0.0  # probability per started job
    drop_connections_every_s: float | None = None
    max_kills: int = 20  # after this many kills, every worker stops injecting, so the run can finish


@dataclass
class Scenario:
    handler: Callable  # def handler(job) or def handler(job, conn): the work, learner code or not
    payloads: list[dict]
    workers: int = 2
    concurrency: int = 2
    lease_s: float = 1.0
    max_attempts: int = 8
    retry_delay_s: float = 0.05  # fault runs retry quickly; backoff has its own exercise
    faults: Faults = field(default_factory=Faults)
    extend_lease: Callable | None = None  # learner's fenced extension: (conn, job, lease_s) -> truthy
    env: dict[str, str] = field(default_factory=dict)  # e.g. the email provider's URL
    timeout_s: float = 90.0  # bounds a hang only: stretched on a loaded machine (processes.HangBound)


@dataclass(frozen=True, kw_only=True)
class Event(eventlog.Event):
    """One line of a fault run's history (course/infra/eventlog.py); t is seconds since the run started.

    kind: ready, claimed, started, finished, failed, acked, killed, exited, restarted, dropped.
    """

    worker: int  # the worker slot, -1 for what happened outside the workers
    job: int | None = None
    attempt: int | None = None
    detail: str = ""


@dataclass
class Run:
    seed: int
    job_ids: list[int]
    events: list[Event]
    timed_out: bool
    left_in_queue: int
    dead: dict[int, queue.DeadJob]
    kills: int
    stuck: list[dict] = field(default_factory=list)  # rows still in the queue at the end
    started_at: float = 0.0  # time.time() at the start: place outside events (a provider's log) on a timeline

    def of(self, job_id: int) -> list[Event]:
        return [e for e in self.events if e.job == job_id]

    def executions(self) -> dict[int, int]:
        """How many times each job's work ran to the end (successfully or not)."""
        return self._count("finished", "failed")

    def starts(self) -> dict[int, int]:
        """How many times each job was started, killed half-way or not: at-least-once, counted."""
        return self._count("started")

    def _count(self, *kinds: str) -> dict[int, int]:
        counts: dict[int, int] = defaultdict(int)
        for event in self.events:
            if event.kind in kinds:
                counts[event.job] += 1
        return counts

    def timeline(self, job_id: int, extra: list[Event] = ()) -> str:
        def describe(e: Event) -> str:
            who = f"worker {e.worker} (pid {e.pid})" if e.worker >= 0 else "outside"
            what = e.kind + (f", attempt {e.attempt}" if e.attempt else "") + (f": {e.detail}" if e.detail else "")
            return f"{who:<22} {what}"

        events = sorted([*self.of(job_id), *extra], key=lambda e: e.t)
        return (f"timeline of job {job_id} (seconds from the start of the run):\n"
                + eventlog.timeline(events, describe, since=0.0))


# -- running a scenario ----------------------------------------------------------------------------


STARTUP_LIMIT_S = 60.0  # from spawning the workers to the first of them running


def run(box: ScratchSchema, scenario: Scenario, seed: int | None = None) -> Run:
    """Enqueue the payloads, run workers with faults until the queue is empty (or time is up)."""
    seed = random.randrange(1, 10**6) if seed is None else seed
    # The history decides verdicts about code under test, and that code runs in the workers: each worker
    # writes into a pipe of its own, and only this process writes the file, each line stamped with the
    # slot and pid it started (eventlog.Kept). No other process (the notebook's, in class grading) can add
    # a line, and a worker can speak only for itself.
    history = eventlog.Kept("course-faults-")
    # Once the kill budget is spent the workers stop injecting: they see the end of a pipe this process
    # holds the other end of (a file in a shared folder, anyone could create and calm the run).
    calm_read, calm_write = os.pipe()
    job_ids = queue.enqueue_many(box.conn, TASK, scenario.payloads, max_attempts=scenario.max_attempts)
    started_at = time.time()
    spec = processes.pickle_for_child({
        "conninfo": box.conninfo, "scenario": scenario, "history": history.path, "seed": seed,
        "started_at": started_at, "calm_fd": calm_read,
    }, "faults-scenario")
    slots: list[processes.Child | None] = [None] * scenario.workers
    incarnations = [0] * scenario.workers
    kills = 0
    timed_out = False
    next_drop = time.monotonic() + (scenario.faults.drop_connections_every_s or float("inf"))

    def start(slot: int) -> None:
        incarnations[slot] += 1
        feed = history.feed(worker=slot)
        slots[slot] = processes.python(
            f"faultworker{slot}", "course.grading.faults.worker", str(spec), str(slot), str(incarnations[slot]),
            env={**scenario.env, **feed.env}, pass_fds=[*feed.fds, calm_read])
        feed.started(slots[slot].pid)

    def calm() -> None:
        nonlocal calm_write
        if calm_write is not None:
            os.close(calm_write)
            calm_write = None

    try:
        for slot in range(scenario.workers):
            start(slot)
        # timeout_s is the scenario's own time: it starts once a worker is up (its "ready" event), so a busy
        # machine's slow process start does not eat it. Starting up has a limit of its own. Both only bound a
        # hang (a job that never comes back): stretched with the machine's load, they never judge speed.
        deadline = None
        startup = processes.HangBound(STARTUP_LIMIT_S)
        while _left(box, job_ids) > 0:
            if deadline is None and os.path.getsize(history.path):  # a worker said it is ready (the file is made empty)
                deadline = processes.HangBound(scenario.timeout_s)
            if (deadline or startup).passed():
                timed_out = True
                break
            for slot, child in enumerate(slots):
                if child is not None and not child.alive():
                    code = child.wait()
                    if code == -9:
                        kills += 1
                        if kills >= scenario.faults.max_kills:
                            calm()
                    elif code != 0:
                        raise WorkerCrashed(f"a worker process failed on its own (exit code {code}):\n"
                                            + child.log_tail(12))
                    _note(history.path, started_at, slot, child.pid, "exited", detail=f"exit code {code}")
                    start(slot)
                    _note(history.path, started_at, slot, slots[slot].pid, "restarted")
            if time.monotonic() > next_drop and kills < scenario.faults.max_kills:
                # Not a connection younger than a second: a worker whose very first connection is cut
                # stops at once (at start a dead database is more likely a wrong address), and a drop
                # is meant to test reconnecting, not starting.
                dropped = box.conn.execute(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE application_name LIKE %s AND backend_start < now() - interval '1 second'",
                    [f"faultworker-{seed}-%"]).fetchone()[0]
                _note(history.path, started_at, -1, 0, "dropped", detail=f"{dropped} worker connections terminated")
                next_drop = time.monotonic() + scenario.faults.drop_connections_every_s
            time.sleep(0.05)
        # Read what is left before the workers stop: their SIGTERM drain would finish some of it.
        left = _left(box, job_ids)
        stuck = [dict(zip(("id", "attempts", "leased", "visible_in_s", "last_error"), row)) for row in box.conn.execute(
            "SELECT id, attempts, lease_token IS NOT NULL, round(extract(epoch FROM run_at - now())::numeric, 2)::float8,"
            " last_error FROM jobs WHERE id = ANY(%s) ORDER BY id LIMIT 5", [job_ids])]
    finally:
        calm()
        for child in slots:
            if child is not None and child.alive():
                child.terminate(timeout=10)
        os.close(calm_read)
        history.close()
    dead = {d.id: d for d in queue.dead_jobs(box.conn, limit=100_000)}
    events = read_history(history.path)
    Path(history.path).unlink(missing_ok=True)
    return Run(seed, job_ids, events, timed_out, left, dead, kills, stuck, started_at)


def _left(box: ScratchSchema, job_ids: list[int]) -> int:
    """This run's jobs still in the queue (a check may keep other jobs of its own in the sandbox)."""
    return box.conn.execute("SELECT count(*) FROM jobs WHERE id = ANY(%s)", [job_ids]).fetchone()[0]


def _note(history: str, started_at: float, worker: int, pid: int, kind: str, **fields) -> None:
    eventlog.record(history, since=started_at, worker=worker, pid=pid, kind=kind, **fields)


def read_history(history: Path | str) -> list[Event]:
    return eventlog.read(history, Event)


# -- invariants, reported on a Trial -------------------------------------------------------------


def expect_finished(t: Trial, result: Run) -> None:
    stuck = result.stuck[0] if result.stuck else None
    note = None
    if stuck:
        note = ("a job that never completes keeps the queue from emptying: look for a handler that hangs, "
                f"or a lease that is never given back.\nstill in the queue: {stuck}\n"
                + result.timeline(stuck["id"]))
    t.require("the run finished: the queue emptied before the time limit", ok=not result.timed_out,
              got=f"{result.left_in_queue} job(s) still in the queue", expected="0", note=note)


def expect_no_job_lost(t: Trial, result: Run, completed: set[int]) -> None:
    """Every job either completed (its effect exists) or is in the dead-letter table."""
    lost = [j for j in result.job_ids if j not in completed and j not in result.dead]
    t.expect("no job lost: each one completed or is in the dead-letter table", ok=not lost,
             got=f"{len(lost)} lost (first: job {lost[0]})" if lost else "none lost", expected="none lost",
             note=result.timeline(lost[0]) if lost else None)


def expect_no_duplicate_effect(t: Trial, result: Run, effects: dict[int, int], what: str = "effect",
                               extra: Callable[[int], list[Event]] = lambda job: []) -> None:
    """`effects`: job id -> how many times its outside effect happened (emails delivered, rows written)."""
    doubled = sorted(j for j, n in effects.items() if n > 1)
    reran = sum(1 for n in result.starts().values() if n > 1)
    note = None
    if doubled:
        note = (f"{reran} job(s) ran more than once in this run (at-least-once delivery); a duplicate run "
                f"must not repeat the {what}.\n" + result.timeline(doubled[0], extra(doubled[0])))
    t.expect(f"no duplicate {what}, even for jobs that ran more than once", ok=not doubled,
             got=f"job {doubled[0]} had {effects[doubled[0]]}" if doubled else f"at most one {what} per job",
             expected=f"at most one {what} per job", note=note)


def expect_poison_dead_lettered(t: Trial, result: Run, poison: set[int], max_attempts: int) -> None:
    wrong = [j for j in sorted(poison) if j not in result.dead or result.dead[j].attempts != max_attempts]
    if not wrong:
        t.expect(f"every poison job is in the dead-letter table with attempts = {max_attempts}", ok=True)
        return
    first = wrong[0]
    if first in result.dead:
        where = f"dead after {result.dead[first].attempts} attempts"
    elif any(s["id"] == first for s in result.stuck):
        where = "still in the queue"
    else:
        where = "gone from the queue without being dead-lettered (acked as if it had worked)"
    t.expect(f"every poison job is in the dead-letter table with attempts = {max_attempts}", ok=False,
             got=f"job {first}: {where}", expected=f"dead after {max_attempts} attempts",
             note=result.timeline(first))


def fault_summary(result: Run) -> str:
    reran = sum(1 for n in result.starts().values() if n > 1)
    return f"{len(result.job_ids)} jobs, {result.kills} workers SIGKILLed, {reran} job(s) ran more than once"
