"""A worker: the process that takes jobs from the queue and runs them.

    wake       LISTEN tells us a job arrived; polling every second is the fallback
    claim      lease as many jobs as there are free slots
    run        each job in a thread of its own, by the handler registered for its type
    heartbeat  extend the leases of running jobs, so a slow job is not handed to a second worker
    ack        delete finished jobs in batches; fail() the ones that raised
    drain      on SIGTERM claim nothing new, finish what runs, exit 0 (a rolling deploy)

A SIGKILL loses nothing: the killed worker's leases run out and its jobs become visible again. The
price is that they run again: a job must be safe to run twice.

Run one with `python -m course worker --app your_module:registry --queue default --concurrency 4`.
Beside it: which handler runs which job type (handlers.py: Registry), the queue operations it calls and
how (operations.py), and the process around it (worker_process.py: spawn, and a stop while it starts).

Why one module: it is one process's loop (wake, claim, run, heartbeat, ack, drain), and every step
shares the same slots, leases and stop signal; split, each piece would reach into the others' state.
"""

from __future__ import annotations

import json
import logging
import os
import select
import signal
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from queue import SimpleQueue

import psycopg
from psycopg.pq import TransactionStatus

from course.core import arguments, backoff
from course.core import queue as q
from course.core.handlers import Handler, Registry  # noqa: F401  (Registry: part of this API, for --app modules)
from course.core.operations import QueueOperations, check_operations
from course.core.queue import Job
from course.core.worker_process import STOP_SIGNALS, conninfo, spawn  # noqa: F401  (conninfo, spawn: part of this API)
from course.errors import CourseError, DatabaseUnavailable, InvalidArgument, first_line

log = logging.getLogger("course.core.worker")

DISCONNECTED = (psycopg.OperationalError, psycopg.InterfaceError)
OPEN_TRANSACTION = (TransactionStatus.INTRANS, TransactionStatus.INERROR)


class TransactionLeftOpen(RuntimeError):
    """A handler returned with its connection inside a transaction: the worker rolled its work back."""


class Hooks:
    """Points where a test harness may watch a worker or break it on purpose (see course/grading).

    Each runs in the thread that reached the point; the default does nothing.
    """

    def claimed(self, jobs: list[Job]) -> None: ...
    def started(self, job: Job) -> None: ...
    def finished(self, job: Job, error: BaseException | None) -> None: ...  # work done, not yet acked
    def acked(self, ids: set[int]) -> None: ...


# -- the worker ----------------------------------------------------------------------------------


@dataclass
class Settings:
    queue: str = q.DEFAULT_QUEUE
    concurrency: int = 4
    lease_s: float = q.DEFAULT_LEASE_S
    poll_interval_s: float = 1.0  # the fallback when no notification arrives
    listen: bool = True
    drain_timeout_s: float = 60.0  # on SIGTERM, how long to keep trying to report finished jobs
    retry_base_s: float = backoff.BASE_S  # a failed job waits up to base * 2**(attempt-1) s ...
    retry_cap_s: float = backoff.CAP_S  # ... and never more than this

    def __post_init__(self):
        interval = self.poll_interval_s
        if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not 0 < interval <= 3600:
            # 0 would poll in a busy loop: thousands of empty claims a second on an idle queue.
            raise InvalidArgument(f"poll interval must be more than 0 and at most 3600 seconds; got {interval!r} "
                                  f"(NOTIFY wakes a worker at once; polling is only the fallback).")
        if not 0 < self.retry_base_s <= self.retry_cap_s:
            raise ValueError(f"retry backoff needs 0 < base <= cap; got base {self.retry_base_s:g} s, "
                             f"cap {self.retry_cap_s:g} s")

    @property
    def custom_backoff(self) -> bool:
        """Whether the retry backoff is not queue.fail's own, so the worker passes fail() its own."""
        return (self.retry_base_s, self.retry_cap_s) != (backoff.BASE_S, backoff.CAP_S)

    def retry_delay(self, attempt: int) -> float:
        return backoff.backoff_delay(attempt, base=self.retry_base_s, cap=self.retry_cap_s)


@dataclass(frozen=True)
class Unconfirmed:
    """The outcome of a fail() whose answer was lost with the connection: what the database shows after.

    "dead" (in the dead-letter table) or "retry scheduled" (waiting, lease token cleared, attempts unchanged):
    our report most likely committed. "unknown": the job has moved on (acked, or claimed by another worker
    after our lease ran out), and whether our report counted cannot be told.
    """

    state: str


@dataclass
class _Reported:
    """What the database confirmed of a batch whose reporting a lost connection cut short."""

    acked: set[int] = field(default_factory=set)  # ids whose ack_many answered
    failed: dict[int, object] = field(default_factory=dict)  # job id -> what fail() answered
    in_doubt: set[int] = field(default_factory=set)  # fail() sent, connection lost before its answer


@dataclass
class _Done:
    job: Job
    error: BaseException | None


@dataclass
class Counters:
    claimed: int = 0
    succeeded: int = 0
    failed: int = 0
    lost_leases: int = 0
    reconnects: int = 0


@dataclass
class Worker:
    conninfo: str
    registry: Registry
    settings: Settings = field(default_factory=Settings)
    hooks: Hooks = field(default_factory=Hooks)
    name: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")
    # The queue operations the worker calls: course.core.queue itself, unless a harness swaps one in (the
    # fault injector runs a learner's lease extension inside this very worker). See QueueOperations.
    ops: QueueOperations = q

    def __post_init__(self) -> None:
        arguments.seconds("lease_s", self.settings.lease_s, then="Nothing was started.")
        arguments.whole("concurrency", self.settings.concurrency, low=1, high=1000, then="Nothing was started.")
        arguments.name("queue", self.settings.queue, then="Nothing was started.")
        check_operations(self.ops, custom_backoff=self.settings.custom_backoff)
        self.counters = Counters()
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._todo: SimpleQueue[tuple[Handler, Job] | None] = SimpleQueue()  # main loop -> handler threads
        self._finished: deque[_Done] = deque()  # appended by handler threads, drained by the main loop
        self._running: dict[int, Job] = {}  # job id -> job, owned by the main loop
        self._conn: psycopg.Connection | None = None
        # Each handler thread that asks for a connection keeps one of its own, opened on first use and
        # again when it breaks: no pool to wait on when the database drops connections.
        self._handler_local = threading.local()
        self._handler_conns: list[psycopg.Connection] = []
        self._handler_conns_lock = threading.Lock()  # handler threads add to it, run() closes them
        # An ack_many whose answer was lost with the connection: id -> lease token. It may have committed; the
        # retry must tell "we deleted it" from "another worker has it now" (see _report_finished).
        self._ack_in_doubt: dict[int, object] = {}
        self._reported = _Reported()  # the same for fail(): outcomes kept until the batch is reported

    # -- control ---------------------------------------------------------------------------------

    def stop(self, *_signal_args) -> None:
        """Claim nothing new; finish the running jobs; then run() returns."""
        self._stopping.set()
        self._wake.set()

    def run(self) -> int:
        """Work until stopped. Returns the process exit code (0 after a clean drain)."""
        if threading.current_thread() is threading.main_thread():
            for signum in STOP_SIGNALS:
                signal.signal(signum, self.stop)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # blocked by spawn() until now: see there
        s = self.settings
        listener = threading.Thread(target=self._listen, name="listen", daemon=True) if s.listen else None
        # One thread per slot, each taking the next job from `_todo`. (A ThreadPoolExecutor would do the
        # same, plus a Future per job that nobody reads: ~8 us a job, a fifth of what a no-op job costs.)
        handler_threads = [threading.Thread(target=self._handler_thread, name=f"job_{n}")
                           for n in range(s.concurrency)]
        for thread in handler_threads:
            thread.start()
        try:
            self._connect_at_start()
            # Said once connected and the jobs table found: "started" means ready to claim.
            log.info("worker %s: queue %r, concurrency %d, lease %.1fs", self.name, s.queue, s.concurrency,
                     s.lease_s)
            if listener:
                listener.start()
            return self._loop()
        finally:
            self._stopping.set()
            for _ in handler_threads:
                self._todo.put(None)  # one "no more jobs" each; a running job finishes first
            for thread in handler_threads:
                thread.join()
            with self._handler_conns_lock:
                conns = list(self._handler_conns)
            for conn in conns:
                conn.close()
            if self._conn is not None:
                self._conn.close()

    # -- the main loop ---------------------------------------------------------------------------

    def _loop(self) -> int:
        s = self.settings
        heartbeat_every = s.lease_s / 3
        next_heartbeat = time.monotonic() + heartbeat_every
        last_error = None  # the last failed statement's message, logged once rather than every poll
        give_up_at = None  # when draining, how long we keep retrying a failing statement
        while True:
            try:
                if time.monotonic() >= next_heartbeat:
                    self._report_finished()  # a finished job needs no heartbeat
                    self._heartbeat()
                    next_heartbeat = time.monotonic() + heartbeat_every
                if self._stopping.is_set():
                    self._report_finished()
                    if not self._running and not self._finished:
                        log.info("worker %s: drained, exiting (%s)", self.name, self.counters)
                        return 0
                else:
                    # A finished job's slot is free once it is reported: count it as free already.
                    free = s.concurrency - len(self._running) + len(self._finished)
                    if free > 0 and self._report_and_claim() == free:
                        continue  # the queue may hold more: ask again without waiting
            except DISCONNECTED as error:
                if not self._reconnect(error):
                    log.error("worker %s: database gone while draining; %d finished job(s) not reported "
                              "will run again when their lease runs out", self.name, len(self._finished))
                    return 1
                continue
            except psycopg.Error as error:
                # Not a lost connection but a statement that failed (a table dropped under us, a lock
                # timeout): say so, wait, try again. Dying would only hand the problem to a supervisor.
                if str(error) != last_error:
                    log.error("worker %s: %s: %s; retrying every %g s", self.name, type(error).__name__,
                              first_line(error), s.poll_interval_s)
                    last_error = str(error)
                if self._stopping.is_set():
                    give_up_at = give_up_at or time.monotonic() + s.drain_timeout_s
                    if time.monotonic() > give_up_at:
                        log.error("worker %s: could not report %d job(s) while draining; they will run again "
                                  "when their lease runs out", self.name, len(self._finished))
                        return 1
                time.sleep(s.poll_interval_s)
                continue
            if last_error is not None:
                log.info("worker %s: statements succeed again; carrying on", self.name)
                last_error = None
            self._wake.wait(timeout=min(s.poll_interval_s, max(0.0, next_heartbeat - time.monotonic())))
            self._wake.clear()

    def _report_and_claim(self) -> int:
        """Report the finished jobs and claim jobs for every free slot; return how many were claimed.

        The ack and the claim go in one statement (queue.ack_and_claim): one commit, one WAL flush, where
        the two statements on their own commit twice. With PostgreSQL's default settings the flush is most
        of what a batch costs on the course's 2-core machine (1-4 ms a commit, about as much as the two
        statements' work), so this nearly halves the time per batch (`python -m course bench --profile`);
        one statement rather than two in a transaction also saves three round trips. Nothing is weaker
        for it: the ack stays fenced by each job's lease; until the commit neither the ack nor the claim
        has happened, and the hooks hear of both only after it.
        """
        claimed = self._report_finished(claim=True)
        if claimed is None:  # nothing to ack: claim alone
            claimed = self._claim(self.settings.concurrency - len(self._running))
        return self._start(claimed)

    def _claim(self, free: int) -> list[Job]:
        s = self.settings
        if free <= 0:
            return []
        return self.ops.claim(self._conn, s.queue, limit=free, lease_s=s.lease_s, worker=self.name)

    def _start(self, jobs: list[Job]) -> int:
        """Hand claimed jobs to the handler threads (or straight to the dead letters)."""
        if not jobs:
            return 0
        self.counters.claimed += len(jobs)
        self.hooks.claimed(jobs)
        for job in jobs:
            handler = self.registry.get(job.type)
            problem = self._refusal(job, handler)
            if problem:
                reason, message = problem
                log.error("worker %s: job %d dead-lettered at once: %s", self.name, job.id, message)
                self.ops.bury(self._conn, job, reason, message)
                self.counters.failed += 1
                continue
            self._running[job.id] = job
            self._todo.put((handler, job))
        return len(jobs)

    def _refusal(self, job: Job, handler: Handler | None) -> tuple[str, str] | None:
        """Jobs no retry can fix: they go straight to the dead-letter table."""
        if handler is None:
            known = ", ".join(self.registry.types) or "none"
            return "unknown_type", f"no handler for job type {job.type!r} (this worker handles: {known})"
        if not isinstance(job.payload, dict):  # another producer wrote it, with SQL
            return "bad_payload", f"payload must be a JSON object, not {json.dumps(job.payload)[:80]}"
        problem = handler.payload_problem(job.payload)
        if problem:
            return "bad_payload", problem
        return None

    def _handler_thread(self) -> None:
        while (work := self._todo.get()) is not None:
            try:
                self._run_one(*work)
            except BaseException:  # noqa: BLE001 - a hook that raised: the thread must go on taking jobs
                log.exception("worker %s: a hook failed around job %d", self.name, work[1].id)

    def _run_one(self, handler: Handler, job: Job) -> None:
        """In a handler thread: run the job, then hand the outcome to the main loop."""
        error = conn = None
        try:
            self.hooks.started(job)
            if handler.wants_connection:
                conn = self._handler_connection()
                handler.run(job, conn)
            else:
                handler.run(job)
        except BaseException as raised:  # noqa: BLE001
            # Anything a handler raises is a failed attempt, recorded and retried or buried. BaseException,
            # not Exception: a SystemExit or KeyboardInterrupt raised in a thread would otherwise end the
            # thread silently, leaving its job "running" (and its lease extended by heartbeats) forever.
            error = raised
        if conn is not None and conn.info.transaction_status in OPEN_TRANSACTION:
            error = self._close_left_transaction(conn, error)
        try:
            self.hooks.finished(job, error)
        finally:
            self._finished.append(_Done(job, error))
            # Wake the main loop, unless it is awake already: Event.set() takes a lock and notifies
            # every time. Safe without the lock: the main loop clears the event before it reads
            # _finished, so a job appended before we saw the event set is one it will see.
            if not self._wake.is_set():
                self._wake.set()

    @staticmethod
    def _close_left_transaction(conn: psycopg.Connection, error: BaseException | None) -> BaseException | None:
        """A handler left a transaction open on its connection (a BEGIN with no COMMIT, or one a raise cut
        short): roll it back, or the next job on this thread would run inside it. Work left uncommitted is
        lost, so a handler that returned normally has failed after all."""
        try:
            conn.rollback()
        except DISCONNECTED:
            pass  # a broken connection is replaced before the next job
        if error is None:
            error = TransactionLeftOpen(
                "the handler returned with a transaction still open (a BEGIN without a COMMIT): its work was "
                "rolled back. Write `with conn.transaction():`, which commits at the end of the block")
        return error

    def _report_finished(self, claim: bool = False) -> list[Job] | None:
        """fail() what raised, then ack what succeeded (one statement). Kept until the database hears it.

        With `claim`, also claim jobs for the free slots (this batch's included) in the ack's
        statement, and return them; None when there was nothing to ack (the caller claims alone).
        A batch whose reporting a lost connection cut short is reported again after the reconnect;
        what the first try had confirmed (`_reported`) is not sent twice.
        """
        if not self._finished:
            return None
        batch = list(self._finished)
        done_before = self._reported
        failures = {done.job.id: self._report_failure(done) for done in batch if done.error is not None}
        succeeded = [done.job for done in batch if done.error is None]
        to_ack = [job for job in succeeded if job.id not in done_before.acked]
        claimed = None
        try:
            if to_ack and claim:
                s = self.settings
                acked, claimed = self.ops.ack_and_claim(self._conn, to_ack, s.queue, worker=self.name,
                                                        limit=s.concurrency - len(self._running) + len(batch),
                                                        lease_s=s.lease_s)
                acked = set(acked)
            else:
                acked = set(self.ops.ack_many(self._conn, to_ack)) if to_ack else set()
        except DISCONNECTED:
            # The DELETE may have committed with only its answer lost: remember what we asked for.
            self._ack_in_doubt.update({job.id: job.lease_token for job in to_ack})
            raise
        done_before.acked |= acked  # confirmed: not asked again if the next statement loses the connection
        if self._ack_in_doubt:
            acked |= self._acked_before(to_ack, acked)
            self._ack_in_doubt.clear()
        acked |= done_before.acked
        self._reported = _Reported()  # the whole batch is reported: the next one starts afresh
        for done in batch:
            if done.error is not None:
                self._log_failure(done, failures[done.job.id])
        for _ in batch:
            self._finished.popleft()
        for done in batch:
            self._running.pop(done.job.id, None)
        self.counters.succeeded += len(acked)
        self.counters.failed += len(failures)
        lost = [job.id for job in succeeded if job.id not in acked]
        if lost:
            self.counters.lost_leases += len(lost)
            log.warning("worker %s: lease lost before ack for job(s) %s: they may have run twice",
                        self.name, lost)
        if acked:
            self.hooks.acked(acked)
        return claimed

    def _report_failure(self, done: _Done):
        """fail() one job, once: its outcome, kept in `_reported` until the whole batch is reported."""
        job, reported = done.job, self._reported
        if job.id in reported.failed:  # reported before the connection dropped: not again
            return reported.failed[job.id]
        try:
            outcome = self._fail(done)
        except DISCONNECTED:
            reported.in_doubt.add(job.id)  # it may have committed with only its answer lost
            raise
        if outcome is None and job.id in reported.in_doubt:
            # "Lease gone" now most likely means our first try committed. Say what the database shows.
            outcome = Unconfirmed(self.ops.fate(self._conn, job))
        reported.failed[job.id] = outcome
        return outcome

    def _acked_before(self, succeeded: list[Job], acked: set[int]) -> set[int]:
        """Of the jobs an ack_many retried after a lost connection, those the first try had deleted.

        Not acked now, asked for then, and gone from both tables: no other worker can have finished it
        while its lease was ours, so the first try's DELETE committed. (Had our lease run out and another
        worker acked it, the job ran twice anyway; a job still in the jobs table is really lost.)
        """
        candidates = [job.id for job in succeeded
                      if job.id not in acked and self._ack_in_doubt.get(job.id) == job.lease_token]
        if not candidates:
            return set()
        return self.ops.gone(self._conn, candidates)

    def _log_failure(self, done: _Done, outcome) -> None:
        job = done.job
        line = q.describe_error(done.error)[0].strip().splitlines()
        what = (line or [type(done.error).__name__])[0][:300]
        if isinstance(outcome, q.Retry):
            then = f"retry in {outcome.delay_s:.1f} s"
        elif isinstance(outcome, q.Dead):
            then = f"dead-lettered ({outcome.reason})"
        elif isinstance(outcome, Unconfirmed) and outcome.state != "unknown":
            then = (f"the connection dropped before fail() answered; the job is {outcome.state} "
                    f"(most likely by that report)")
        elif isinstance(outcome, Unconfirmed):
            then = ("outcome unknown: the connection dropped before fail() answered, and the job has moved on "
                    "since (another worker may have it)")
        else:
            then = "lease lost: another worker has the job now"
        log.warning("worker %s: job %d (%s) attempt %d of %d failed: %s; %s", self.name, job.id, job.type,
                    job.attempts, job.max_attempts, what, then)

    def _fail(self, done: _Done):
        if not self.settings.custom_backoff:
            return self.ops.fail(self._conn, done.job, done.error)  # the plain call: ops may be a learner's
        return self.ops.fail(self._conn, done.job, done.error, backoff=self.settings.retry_delay)

    def _heartbeat(self) -> None:
        running = list(self._running.values())
        if not running:
            return
        still_ours = self.ops.extend_leases(self._conn, running, self.settings.lease_s)
        lost = [job.id for job in running if job.id not in still_ours]
        if lost:
            log.warning("worker %s: lease of running job(s) %s expired before the heartbeat; another "
                        "worker may be running them too", self.name, lost)

    # -- connections -----------------------------------------------------------------------------

    def _connect(self) -> None:
        self._conn = psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5)
        # Our statements run thousands of times with the same shape: plan each once. Left to decide,
        # PostgreSQL re-planned the claim at every run (its generic plan's estimate, made without knowing
        # the LIMIT, looks dearer than the custom plans, though it is the same plan): 8-9 % of the
        # backend's CPU (perf), and 12 % less backend CPU per job without it (`python -m course bench`).
        self._conn.execute("SET plan_cache_mode = force_generic_plan")

    def _connect_at_start(self) -> None:
        """Once running, a worker waits for its database however long it takes (see _reconnect); at
        start, a database that does not answer is more likely a wrong address: say so and stop. So is a
        schema with no jobs table: retrying would never find one."""
        try:
            self._connect()
            place = self.ops.where(self._conn)
        except DISCONNECTED as error:
            raise DatabaseUnavailable(f"worker {self.name}: the database did not answer: {first_line(error)}") from None
        if place.schema is None:
            raise CourseError(f"worker {self.name}: the schema {place.search_path!r} does not exist: check --schema, "
                              f"or create it and install the queue there. Nothing was claimed.")
        if not place.installed:
            raise CourseError(f"worker {self.name}: there is no jobs table in schema {place.schema!r}: install the "
                              f"queue there first (course.core.queue.install(conn)), or check --schema. Nothing was "
                              f"claimed.")

    def _reconnect(self, error: Exception) -> bool:
        """Connect again, however long it takes; False only when draining and out of time."""
        log.warning("worker %s: database connection lost (%s); reconnecting", self.name, first_line(error))
        give_up_at = None
        delay = 0.1
        while True:
            if self._stopping.is_set():
                give_up_at = give_up_at or time.monotonic() + self.settings.drain_timeout_s
                if time.monotonic() > give_up_at:
                    return False
            self._conn.close()
            try:
                self._connect()
            except DISCONNECTED:
                time.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            self.counters.reconnects += 1
            log.info("worker %s: reconnected", self.name)
            return True

    def _handler_connection(self) -> psycopg.Connection:
        """This handler thread's connection (autocommit), opened on first use and again when the server has
        closed it.

        A connection the server closed while it sat idle between jobs (a restart, an administrator's
        pg_terminate_backend) is neither `closed` nor `broken` yet: psycopg learns of it only at the next
        statement, which would be the handler's, and the job would lose an attempt to a restart that
        happened before it was claimed. An idle connection has nothing to read unless the server spoke
        first, and what a server says unasked to an idle session is nearly always goodbye: then we open a
        new one (a poll of the socket, no round trip).
        """
        conn = getattr(self._handler_local, "conn", None)
        if conn is not None and not conn.closed and not conn.broken and _readable(conn):
            conn.close()
        if conn is None or conn.closed or conn.broken:
            conn = self._open_handler_connection()
            self._handler_local.conn = conn
            with self._handler_conns_lock:  # several handler threads may get here at once
                self._handler_conns[:] = [c for c in self._handler_conns if not c.closed] + [conn]
        return conn

    def _open_handler_connection(self) -> psycopg.Connection:
        """A new connection for a handler; while the database restarts, retried for as long as a lease lasts
        (the main loop, reconnecting too, extends the job's lease once it is back)."""
        give_up_at = time.monotonic() + self.settings.lease_s
        delay = 0.1
        while True:
            try:
                return psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5)
            except DISCONNECTED:
                if time.monotonic() + delay > give_up_at or self._stopping.is_set():
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 2.0)

    def _listen(self) -> None:
        """In its own thread: turn NOTIFY into a wake-up. Any failure falls back to polling."""
        while not self._stopping.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5) as conn:
                    self.ops.listen(conn)
                    self._wake.set()  # jobs may have arrived while we were not listening
                    while not self._stopping.is_set():
                        for note in conn.notifies(timeout=1.0):
                            if note.payload == self.settings.queue:
                                self._wake.set()
            except DISCONNECTED:
                time.sleep(0.5)


def _readable(conn: psycopg.Connection) -> bool:
    """Whether the server has sent anything (or closed the socket) since we last read from it."""
    poller = select.poll()  # not select.select: it refuses descriptors above 1023
    poller.register(conn.fileno(), select.POLLIN)
    return bool(poller.poll(0))
