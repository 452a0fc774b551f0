"""One exam worker: `python -m course.grading.exam.worker SPEC SLOT INCARNATION`.

It is a queue made of the learner's pieces and nothing else of theirs: it claims with their 03.claim
(the last slot with their 03.claim_batch, BATCH jobs at a time, worked one after the other), works, books the job's effect and acks with their 04.fenced_ack in one transaction, keeps its lease
with their 04.heartbeat from a thread of its own, asks their 07.route what to do with a failure and,
when it says retry, waits as long as their 07.backoff says (seeded by job and attempt, so the verdict can
tell what was promised; the route's own delay_s is not used).
Around each piece it watches what the piece did, with the row locked so that nobody acts in between
(whose lease it was, whether the row went, how far the lease moved), and writes that to the run's
history, through a pipe of its own (the run alone writes the file, stamped with this worker's slot and
pid, and reads the verdict from it). It kills itself at seeded random points (mid-work; after the ack,
before the commit) until the run tells it the kill budget is spent (cues.py).

It logs in as the run's worker role (never the superuser) where its DATABASE_URL leads: in class grading
it runs in the notebook's sandbox, whose one way to the run's PostgreSQL is the sandbox's gate.
Its connections may be cut (the run terminates their backends) and PostgreSQL restarted under it: a
worker that finds its connection gone connects again and goes on, as a production worker must. A piece
that raised because its connection was cut is not blamed; the job in hand is let go (its lease runs out
and another claim takes it), and whether that lost or doubled anything is what the verdict reads.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import threading
import time
from contextlib import contextmanager
from datetime import datetime

import psycopg
from psycopg.conninfo import make_conninfo

from course.core import queue
from course.errors import PermanentError, first_line
from course.grading.exam import cues
from course.infra import db, eventlog, processes
from course.programs import sql

MID_WORK = "while the job was running"
PIECE_RAISED = 3  # the exit code of a worker whose piece raised: the run stops and says which piece
FREEZE_WAIT_S = 120.0  # the longest a slow job waits for its freeze: past the run's cue limit (90 s)
RECONNECT_LIMIT_S = 90.0  # how long a worker tries to connect again (a restart took 1-10 s under load)
DISCONNECTED = (psycopg.OperationalError, psycopg.InterfaceError)


BATCH = 3  # the limit passed to 03.claim_batch
BACKOFF_PROBE = 200  # draws of 07.backoff per attempt, each with a Random of its own seed: a fixed sample
PROBE_ATTEMPTS = range(1, 11)  # 2^9 = 512 > 300: the cap is reached within them


CLAIMING = "-claiming"  # the end of a worker connection's application_name while its claim piece runs


@contextmanager
def claiming(conn: psycopg.Connection, name: str):
    """Inside a transaction: the connection is named `name + CLAIMING` while the block runs (the learner's
    claim), and `name` again after it. The run's row-lock cue reads the name in pg_stat_activity to tell
    a claim that waits from any other statement of the worker's (soak.py)."""
    conn.execute("SELECT set_config('application_name', %s, true)", [name + CLAIMING])
    yield
    conn.execute("SELECT set_config('application_name', %s, true)", [name])


class ConnectionLost(Exception):
    """The worker's connection was cut (by the run) while it, or a piece, used it: nobody's fault here."""


class PieceRaised(Exception):
    def __init__(self, piece: str, error: BaseException):
        super().__init__(f"{piece} raised {type(error).__name__}: {first_line(error)}")
        self.piece = piece


def _row_id(row):
    """The job's id from what a claim returned: a tuple (id, ...), a dict, an object with .id, or an id."""
    if isinstance(row, dict):
        return row.get("id")
    if isinstance(row, (tuple, list)):
        return row[0] if row else None
    return getattr(row, "id", row)


def _epoch(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


class ExamWorker:
    def __init__(self, spec: dict, slot: int, incarnation: int):
        self.spec, self.slot, self.incarnation = spec, slot, incarnation
        self.batch = slot == spec["batch_slot"]
        self.pieces = spec["pieces"]
        self.lease_s = spec["lease_s"]
        self.rng = random.Random(f"{spec['seed']}:{slot}:{incarnation}")
        self.heard = cues.Heard.from_env()  # what the run says: calm, a freeze (cues.py)
        self.name = f"examworker-{spec['seed']}-{slot}"
        self.conn = self.connect(self.name)
        self.beat_conn = self.connect(self.name + "-hb")
        self.running: dict[int, queue.Job] = {}  # jobs at work: the ones the heartbeat keeps
        self.lock = threading.Lock()  # guards `running`
        self.beating = threading.Lock()  # held through one heartbeat: a job leaves `running` between two

    # -- the history --------------------------------------------------------------------------------

    def note(self, kind: str, job=None, detail: str = "", **facts) -> None:
        eventlog.record(self.spec["history"], since=self.spec["started_at"], worker=self.slot, kind=kind,
                        job=getattr(job, "id", job), attempt=getattr(job, "attempts", None), detail=detail,
                        facts=facts)

    def call(self, piece: str, *args):
        try:
            return self.pieces[piece](*args)
        except Exception as error:
            if args and isinstance(args[0], psycopg.Connection) and _lost(args[0]):
                raise ConnectionLost(f"{piece}: {first_line(error)}") from error
            raise PieceRaised(piece, error) from error

    # -- the connections, cut under us --------------------------------------------------------------

    def connect(self, name: str) -> psycopg.Connection:
        """A new connection, tried again until RECONNECT_LIMIT_S (the server may be restarting)."""
        deadline = time.monotonic() + RECONNECT_LIMIT_S
        while True:
            try:
                return psycopg.connect(make_conninfo(db.reached_here(self.spec["conninfo"]), application_name=name),
                                       autocommit=True, connect_timeout=5)
            except DISCONNECTED:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def reconnect(self, which: str, error: BaseException) -> psycopg.Connection:
        old = self.conn if which == "main" else self.beat_conn
        if not _lost(old):
            raise error  # the connection is fine: the error is not the run's doing
        self.note("connection_lost", None, f"{which} connection: {first_line(error)}")
        old.close()
        new = self.connect(self.name if which == "main" else self.name + "-hb")
        self.note("reconnected", None, f"{which} connection")
        return new

    def die(self, job: queue.Job, why: str) -> None:
        if self.heard.calm:
            return
        with self.lock:
            if why == MID_WORK and job.id not in self.running:
                return  # the work ended before the timer fired: no longer "mid-work"
            self.note("killed", job, f"SIGKILL injected {why}")
            for other in self.running.values():
                if other is not job:
                    self.note("killed", other, "went down with its worker")
            os.kill(os.getpid(), signal.SIGKILL)

    # -- the pieces, watched -----------------------------------------------------------------------

    def claim(self) -> list[queue.Job]:
        """The jobs a claim gave this worker: one from 03.claim, up to BATCH from 03.claim_batch."""
        with self.conn.transaction():
            before = self.conn.execute("SELECT clock_timestamp()").fetchone()[0]
            with claiming(self.conn, self.name):
                if self.batch:
                    rows = self.call("03.claim_batch", self.conn, BATCH, self.lease_s)
                    rows = list(rows or [])
                else:
                    row = self.call("03.claim", self.conn, self.lease_s)
                    rows = [] if row is None or (isinstance(row, (list, tuple)) and not row) else [row]
            claimed = self.conn.execute("SELECT count(*) FROM claim_log WHERE backend = pg_backend_pid() "
                                        "AND at >= %s", [before]).fetchone()[0]
            found = [(_row_id(row), self.conn.execute(sql.query("exam", "lease_of"), {"id": _row_id(row)}).fetchone())
                     for row in rows]
        if self.batch and (claimed > BATCH or claimed != len(rows)):
            self.note("batch_claimed", None, claimed=claimed, returned=len(rows), limit=BATCH)
        jobs = []
        for job_id, lease in found:
            if lease is None:
                self.note("claim_vanished", job_id, "the claim returned this job, and it is not in the table")
                continue
            lease_token, attempts, max_attempts, held_until, type_, payload = lease
            job = queue.Job(job_id, "default", type_, payload, 0, attempts, max_attempts, lease_token, held_until)
            self.note("claimed", job, held_until=_epoch(held_until), lease_token=str(lease_token),
                      piece="03.claim_batch" if self.batch else "03.claim")
            jobs.append(job)
        with self.lock:  # the whole batch is ours from now: the heartbeat keeps the jobs that wait their turn
            self.running.update((job.id, job) for job in jobs)
        return jobs

    def ack(self, job: queue.Job) -> None:
        with self.conn.transaction() as tx:
            held = self.conn.execute(sql.query("exam", "hold_row"), {"id": job.id}).fetchone()
            self.conn.execute(sql.query("exam", "book"), {"id": job.id, "worker": self.slot, "attempt": job.attempts})
            returned = self.call("04.fenced_ack", self.conn, job.id, job.lease_token)
            gone = self.conn.execute("SELECT NOT EXISTS (SELECT FROM jobs WHERE id = %s)", [job.id]).fetchone()[0]
            ours = held is not None and held[0] == job.lease_token
            deleted = held is not None and gone
            self.note("acked" if deleted else "ack_refused", job, ours=ours, deleted=deleted,
                      returned=bool(returned), exists_before=held is not None)
            if self.rng.random() < self.spec["kill_after_ack"]:
                self.die(job, "after the ack, before its commit")
            if not deleted:
                raise psycopg.Rollback(tx)  # the effect commits with the ack, or not at all

    def beat(self, job: queue.Job) -> bool:
        """One heartbeat; False when this job's heartbeats should stop."""
        with self.beat_conn.transaction():
            held = self.beat_conn.execute(sql.query("exam", "hold_row"), {"id": job.id}).fetchone()
            returned = self.call("04.heartbeat", self.beat_conn, job, self.lease_s)
            after = self.beat_conn.execute("SELECT greatest(run_at, locked_until) FROM jobs WHERE id = %s",
                                           [job.id]).fetchone()
        ours = held is not None and held[0] == job.lease_token
        moved = held is not None and after is not None and after[0] != held[1]
        extended = ours and after is not None and _epoch(after[0]) >= _epoch(held[2]) + self.lease_s - 0.001
        self.note("heartbeat", job, ours=ours, moved=moved, extended=extended, returned=bool(returned),
                  held_until=_epoch(after[0]) if after else None)
        return bool(returned) and ours

    def settle_failure(self, job: queue.Job, error: BaseException) -> None:
        decision = self.call("07.route", job, error)
        permanent = isinstance(error, PermanentError)
        due = None  # when a retry makes the job due again, on the server's clock
        with self.conn.transaction():
            self.conn.execute(sql.query("exam", "hold_row"), {"id": job.id})
            if isinstance(decision, queue.Retry):
                delay_s = self.call("07.backoff", job.attempts, random.Random(backoff_seed(self.spec["seed"], job)))
                if not isinstance(delay_s, (int, float)):
                    raise PieceRaised("07.backoff", TypeError(f"it returned {delay_s!r}, not a number of seconds"))
                row = self.conn.execute(sql.query("exam", "retry"), {
                    "id": job.id, "lease_token": job.lease_token, "delay_s": float(delay_s),
                    "error": first_line(error)}).fetchone()
                done = row is not None
                due = row[0] if done else None
                self.note("retried", job, f"Retry, backoff {delay_s:.2f} s", delay_s=float(delay_s),
                          permanent=permanent, applied=bool(done))
            elif isinstance(decision, queue.Dead):
                done = self.conn.execute(sql.query("exam", "bury"), {
                    "id": job.id, "lease_token": job.lease_token, "reason": str(decision.reason),
                    "error": first_line(error)}).rowcount
                self.note("buried", job, f"Dead({decision.reason!r})", permanent=permanent, applied=bool(done))
            else:
                raise PieceRaised("07.route", TypeError(f"it returned {decision!r}, not queue.Retry or queue.Dead"))
        if due is not None:  # committed: the job is the backoff's until then (a cut commit never was)
            self.note("retry_due", job, f"due again at {_epoch(due) - self.spec['started_at']:.2f} s",
                      due=_epoch(due) - self.spec["started_at"])

    # -- the work ----------------------------------------------------------------------------------

    def work(self, job: queue.Job) -> None:
        with self.lock:
            self.running[job.id] = job
        self.note("started", job)
        kind, work_s = job.payload["kind"], job.payload["work_s"]
        if self.rng.random() < self.spec["kill_mid_work"]:
            when = self.rng.uniform(0.0, work_s)
            if kind != "slow":  # a slow job is the freeze cue's: killed, its worker would never make the stale ack
                threading.Timer(when, self.die, args=(job, MID_WORK)).start()
        try:
            time.sleep(work_s)
            if kind == "slow":
                self.wait_for_the_freeze(job)
            if kind == "poison":
                raise TimeoutError("the bank did not answer")
            if kind == "permanent":
                raise PermanentError("the account is closed")
        except Exception as error:
            self.stop_beating(job)
            self.note("failed", job, f"{type(error).__name__}: {error}")
            self.settle_failure(job, error)
        else:
            self.stop_beating(job)
            self.note("finished", job)
            try:
                self.ack(job)
            except (ConnectionLost, *DISCONNECTED) as error:
                self.note("let_go", job, f"the connection was cut before the ack: {first_line(error)}")
                raise

    def wait_for_the_freeze(self, job: queue.Job) -> None:
        """A slow job's work ends only once the run has frozen the worker running it (soak.py's cue 2),
        in this attempt, or in an earlier one that then made its ack (the stale ack the freeze is for): a
        fault that held the run's fault lock through the whole work (a restart under load) would otherwise
        let the job finish unfrozen, and an ack that never meets a lost lease is never judged; a frozen
        attempt whose connection was cut just before the freeze makes no ack, and this one is frozen
        instead. The run says so (cues.py: the history is its own, which no worker reads). The heartbeat
        keeps the lease meanwhile; FREEZE_WAIT_S bounds it."""
        deadline = time.monotonic() + FREEZE_WAIT_S
        while time.monotonic() < deadline:
            if self.heard.frozen(job.id, job.attempts) or self.heard.released(job.id):
                return
            time.sleep(0.2)

    def stop_beating(self, job: queue.Job) -> None:
        """The work is over: no heartbeat for this job from now on (one in flight finishes first)."""
        with self.beating, self.lock:
            self.running.pop(job.id, None)

    def heartbeats(self) -> None:
        """Every third of a lease, extend the lease of each job still at work (until it is not ours)."""
        stopped: set[tuple[int, int]] = set()
        while True:
            time.sleep(self.lease_s / 3)
            with self.lock:
                jobs = list(self.running.values())
            for job in jobs:
                if (job.id, job.attempts) in stopped:
                    continue
                with self.beating:
                    with self.lock:
                        if self.running.get(job.id) is not job:
                            continue  # its work ended since we looked
                    try:
                        if not self.beat(job):
                            stopped.add((job.id, job.attempts))
                    except PieceRaised as error:
                        self.crash(error)
                    except (ConnectionLost, *DISCONNECTED) as error:
                        self.beat_conn = self.reconnect("heartbeat", error)

    def crash(self, error: PieceRaised) -> None:
        self.note("piece_raised", None, str(error), piece=error.piece)
        os._exit(PIECE_RAISED)

    def probe_backoff(self) -> None:
        """07.backoff's draws at each attempt, each with a Random of a fixed seed: what the verdict holds to
        the rule (between 0 and the ceiling, and reaching near it). One worker does it, once."""
        draws = {}
        for attempt in PROBE_ATTEMPTS:
            values = [self.call("07.backoff", attempt, random.Random(f"probe:{attempt}:{n}")) for n in range(BACKOFF_PROBE)]
            if not all(isinstance(v, (int, float)) for v in values):
                raise PieceRaised("07.backoff", TypeError(f"it returned {values[0]!r}, not a number of seconds"))
            draws[attempt] = [min(values), max(values)]
        self.note("backoff_probe", None, draws=draws)

    def run(self) -> int:
        self.note("ready")
        try:
            if self.slot == 0 and self.incarnation == 1:
                self.probe_backoff()
        except PieceRaised as error:
            self.crash(error)
        threading.Thread(target=self.heartbeats, daemon=True).start()
        try:
            while True:
                try:
                    jobs = self.claim()
                    if not jobs:
                        time.sleep(0.1)
                        continue
                    for job in jobs:
                        self.work(job)
                except (ConnectionLost, *DISCONNECTED) as error:
                    # the jobs in hand are let go: no more heartbeats, their leases run out and other
                    # claims take them
                    with self.beating, self.lock:
                        self.running.clear()
                    self.conn = self.reconnect("main", error)
        except PieceRaised as error:
            self.crash(error)
        return 0


def backoff_seed(seed: int, job) -> str:
    """The seed of the Random a retry's 07.backoff draws with: the verdict replays it."""
    return f"{seed}:{job.id}:{job.attempts}"


def _lost(conn: psycopg.Connection) -> bool:
    return conn.closed or conn.broken


def main(argv: list[str]) -> int:
    processes.die_with_parent()
    spec = processes.unpickle(argv[0])
    return ExamWorker(spec, int(argv[1]), int(argv[2])).run()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
