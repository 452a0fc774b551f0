"""One exam worker: `python -m course.grading.exam.worker SPEC SLOT INCARNATION`.

It is a queue made of the learner's pieces and nothing else of theirs: it claims with their 03.claim,
works, books the job's effect and acks with their 04.fenced_ack in one transaction, keeps its lease
with their 04.heartbeat from a thread of its own, and asks their 07.route what to do with a failure.
Around each piece it watches what the piece did, with the row locked so that nobody acts in between
(whose lease it was, whether the row went, how far the lease moved), and writes that to the run's
history: the verdict is read from there, in the parent. It kills itself at seeded random points (mid-
work; after the ack, before the commit) until the run's kill budget is spent.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import threading
import time
from datetime import datetime

import psycopg
from psycopg.conninfo import make_conninfo

from course.core import queue
from course.errors import PermanentError, first_line
from course.infra import eventlog, processes
from course.programs import sql

MID_WORK = "while the job was running"
PIECE_RAISED = 3  # the exit code of a worker whose piece raised: the run stops and says which piece


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
        self.spec, self.slot = spec, slot
        self.pieces = spec["pieces"]
        self.lease_s = spec["lease_s"]
        self.rng = random.Random(f"{spec['seed']}:{slot}:{incarnation}")
        name = f"examworker-{spec['seed']}-{slot}"
        self.conn = psycopg.connect(make_conninfo(spec["conninfo"], application_name=name), autocommit=True)
        self.beat_conn = psycopg.connect(make_conninfo(spec["conninfo"], application_name=name + "-hb"),
                                         autocommit=True)
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
            raise PieceRaised(piece, error) from error

    def die(self, job: queue.Job, why: str) -> None:
        if os.path.exists(self.spec["calm"]):
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

    def claim(self) -> queue.Job | None:
        with self.conn.transaction():
            row = self.call("03.claim", self.conn, self.lease_s)
            if row is None or (isinstance(row, (list, tuple)) and not row):
                return None
            job_id = _row_id(row)
            found = self.conn.execute(sql.query("exam", "lease_of"), {"id": job_id}).fetchone()
        if found is None:
            self.note("claim_vanished", job_id, "the claim returned this job, and it is not in the table")
            return None
        lease_token, attempts, max_attempts, held_until, type_, payload = found
        job = queue.Job(job_id, "default", type_, payload, 0, attempts, max_attempts, lease_token, held_until)
        self.note("claimed", job, held_until=_epoch(held_until), lease_token=str(lease_token))
        return job

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
        with self.conn.transaction():
            self.conn.execute(sql.query("exam", "hold_row"), {"id": job.id})
            if isinstance(decision, queue.Retry):
                done = self.conn.execute(sql.query("exam", "retry"), {
                    "id": job.id, "lease_token": job.lease_token, "delay_s": float(decision.delay_s),
                    "error": first_line(error)}).rowcount
                self.note("retried", job, f"Retry({decision.delay_s:.2f})", delay_s=float(decision.delay_s),
                          permanent=permanent, applied=bool(done))
            elif isinstance(decision, queue.Dead):
                done = self.conn.execute(sql.query("exam", "bury"), {
                    "id": job.id, "lease_token": job.lease_token, "reason": str(decision.reason),
                    "error": first_line(error)}).rowcount
                self.note("buried", job, f"Dead({decision.reason!r})", permanent=permanent, applied=bool(done))
            else:
                raise PieceRaised("07.route", TypeError(f"it returned {decision!r}, not queue.Retry or queue.Dead"))

    # -- the work ----------------------------------------------------------------------------------

    def work(self, job: queue.Job) -> None:
        with self.lock:
            self.running[job.id] = job
        self.note("started", job)
        kind, work_s = job.payload["kind"], job.payload["work_s"]
        if self.rng.random() < self.spec["kill_mid_work"]:
            threading.Timer(self.rng.uniform(0.0, work_s), self.die, args=(job, MID_WORK)).start()
        try:
            time.sleep(work_s)
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
            self.ack(job)

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

    def crash(self, error: PieceRaised) -> None:
        self.note("piece_raised", None, str(error), piece=error.piece)
        os._exit(PIECE_RAISED)

    def run(self) -> int:
        self.note("ready")
        threading.Thread(target=self.heartbeats, daemon=True).start()
        try:
            while True:
                job = self.claim()
                if job is None:
                    time.sleep(0.1)
                    continue
                self.work(job)
        except PieceRaised as error:
            self.crash(error)
        return 0


def main(argv: list[str]) -> int:
    processes.die_with_parent()
    spec = processes.unpickle(argv[0])
    return ExamWorker(spec, int(argv[1]), int(argv[2])).run()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
