"""Lab 04: what a heartbeat does not do, on real workers.

A heartbeat keeps a slow, healthy job's lease; it narrows the window for a second run, it does not close
it. Two demos:

    pause_past_lease    a worker process is frozen (SIGSTOP: a stop-the-world pause, a VM migrated, a
                        laptop lid) in the middle of a channel-manager sync. Its heartbeat is frozen with
                        it, the lease runs out, a second worker claims the job and syncs. The first wakes
                        (SIGCONT), finishes its own sync and tries to ack: the lease token refuses the ack,
                        but the sync it made is made. The token fences the ack, not the effect.
    hung_lease          a handler hangs on a call with no timeout. The heartbeat thread is alive, so the
                        lease is extended again and again: the job is never retried and never dead-lettered.

    run = paused_worker.pause_past_lease("lab04", booking_id=983)
    run.syncs, run.ack_refused        # 2, True

The workers are the course's own (`python -m course worker`), running `handlers` below.
"""

from __future__ import annotations

import os
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg

from course.core import queue, worker
from course.core.worker import Registry
from course.infra import db, eventlog, processes

APP = "course.programs.paused_worker:handlers"
LOG_ENV = "PAUSED_WORKER_LOG"
SYNC_S_ENV = "PAUSED_WORKER_SYNC_S"
LEASE_LOST = "lease lost before ack"  # what the course's worker logs when its ack finds the lease gone

handlers = Registry()


@handlers.handler("sync_channel_manager", payload={"booking_id": int})
def sync_channel_manager(job, conn) -> None:
    """Tell the channel manager about a booking: some seconds of partner calls, then one row per sync sent."""
    log = os.environ[LOG_ENV]
    eventlog.record(log, kind="started", pid=os.getpid(), at=time.time())
    time.sleep(float(os.environ.get(SYNC_S_ENV, "2.0")))
    conn.execute("INSERT INTO partner_syncs (booking_id, pid) VALUES (%s, %s)", [job.payload["booking_id"], os.getpid()])
    eventlog.record(log, kind="finished", pid=os.getpid(), at=time.time())


@handlers.handler("call_without_timeout", payload={"booking_id": int})
def call_without_timeout(job) -> None:
    """A partner call with no timeout, to a partner that never answers: the handler never returns."""
    while True:
        time.sleep(3600)


def install(conn: psycopg.Connection) -> None:
    """The queue's tables and the log of syncs sent, in the connection's schema."""
    queue.install(conn)
    conn.execute("CREATE TABLE IF NOT EXISTS partner_syncs (booking_id bigint NOT NULL, pid int NOT NULL, "
                 "sent_at timestamptz NOT NULL DEFAULT clock_timestamp())")


def _spawn(schema: str, name: str, lease_s: float, env: dict[str, str]) -> processes.Child:
    return worker.spawn(APP, schema=schema, concurrency=1, lease_s=lease_s, poll_interval_s=0.1, name=name, env=env)


@dataclass(frozen=True)
class PausedRun:
    """Times in seconds from the first worker's start of the sync."""

    lease_s: float
    first_started: float
    paused: tuple[float, float]  # SIGSTOP .. SIGCONT of the first worker
    second_started: float
    second_finished: float
    first_finished: float
    syncs: int  # rows in partner_syncs for the booking: effects made
    ack_refused: bool  # the first worker's log says its lease was lost before its ack
    jobs_left: int

    @property
    def overlap_s(self) -> float:
        """How long the two runs of the sync were both under way (the first one frozen for part of it)."""
        return max(0.0, min(self.first_finished, self.second_finished) - self.second_started)


def pause_past_lease(schema: str, booking_id: int, *, lease_s: float = 1.0, sync_s: float = 2.0,
                     timeout_s: float = 60.0) -> PausedRun:
    """Run one sync job; freeze its worker mid-sync until a second worker has claimed it and started."""
    with tempfile.TemporaryDirectory(prefix="paused-") as folder, db.connect(schema) as conn:
        install(conn)
        conn.execute("DELETE FROM jobs")
        log = Path(folder) / "events.jsonl"
        env = {LOG_ENV: str(log), SYNC_S_ENV: str(sync_s)}
        first = _spawn(schema, "worker-1", lease_s, env)
        second = None
        try:
            queue.enqueue(conn, "sync_channel_manager", {"booking_id": booking_id})
            began = _event(log, "started", first.pid, timeout_s)
            time.sleep(min(0.3, sync_s / 4))
            first.signal(signal.SIGSTOP)  # frozen: its handler and its heartbeat alike
            stopped = time.time()
            second = _spawn(schema, "worker-2", lease_s, env)
            second_began = _event(log, "started", second.pid, timeout_s)
            time.sleep(0.2)
            first.signal(signal.SIGCONT)
            resumed = time.time()
            second_done = _event(log, "finished", second.pid, timeout_s)
            first_done = _event(log, "finished", first.pid, timeout_s)
            processes.wait_until(lambda: LEASE_LOST in first.log() or not _job_left(conn), timeout_s,
                                 what="the first worker's ack")
            processes.wait_until(lambda: LEASE_LOST in first.log(), 5.0, what="the first worker's refused ack")
            syncs = conn.execute("SELECT count(*) FROM partner_syncs WHERE booking_id = %s", [booking_id]).fetchone()[0]
            refused = LEASE_LOST in first.log()
        finally:
            if first.alive():
                first.signal(signal.SIGCONT)
            for child in (first, second):
                if child is not None and child.alive():
                    child.terminate()
        return PausedRun(lease_s, 0.0, (stopped - began, resumed - began), second_began - began,
                         second_done - began, first_done - began, syncs, refused, _job_left(conn))


def _job_left(conn: psycopg.Connection) -> int:
    return conn.execute("SELECT count(*) FROM jobs").fetchone()[0]


def _event(log: Path, kind: str, pid: int, timeout_s: float) -> float:
    def found():
        return next((e["at"] for e in eventlog.read(log) if e["kind"] == kind and e["pid"] == pid), None)

    return processes.wait_until(found, timeout_s, interval=0.02, what=f"{kind} by pid {pid}")


def plot(run: PausedRun, ax=None):
    """The two runs of the sync on one time line: the first frozen, the second in the lease it took over."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 2.4))
    ax.barh(1, run.first_finished - run.first_started, left=run.first_started, color="tab:blue", alpha=0.5)
    ax.barh(1, run.paused[1] - run.paused[0], left=run.paused[0], color="white", hatch="//", edgecolor="tab:blue")
    ax.text(run.paused[0] + 0.05, 1.32, "frozen (SIGSTOP): no work, no heartbeat", fontsize=8)
    ax.text(run.first_finished + 0.05, 1, "sync sent; ack refused" if run.ack_refused else "sync sent; acked",
            va="center", color="tab:red" if run.ack_refused else "tab:green")
    ax.barh(0, run.second_finished - run.second_started, left=run.second_started, color="tab:orange", alpha=0.7)
    ax.text(run.second_finished + 0.05, 0, "sync sent; acked", va="center", color="tab:green")
    ax.axvline(run.first_started + run.lease_s, color="grey", linestyle=":", linewidth=1)
    ax.text(run.first_started + run.lease_s + 0.05, -0.45, "the last lease it had renewed ends", fontsize=8)
    ax.set_yticks([1, 0], ["worker 1", "worker 2"])
    ax.set_ylim(-0.7, 1.7)
    ax.set_xlim(0, max(run.first_finished, run.second_finished) + 2.2)
    ax.set_xlabel("seconds since worker 1 started the sync")
    ax.set_title("A heartbeat cannot beat for a frozen process: the job runs twice, one ack is refused")
    return ax


# -- the hung handler ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LeaseSample:
    at_s: float  # since the claim
    attempts: int
    lease_left_s: float  # run_at - now(): how long until the job would be handed to someone else


def hung_lease(schema: str, *, lease_s: float = 1.0, watch_s: float = 3.0, every_s: float = 0.5,
               timeout_s: float = 60.0) -> list[LeaseSample]:
    """A worker runs a handler that never returns; watch its job's lease for `watch_s` seconds, then kill it."""
    with db.connect(schema) as conn:
        install(conn)
        conn.execute("DELETE FROM jobs")
        child = _spawn(schema, "worker-hung", lease_s, {LOG_ENV: os.devnull})
        try:
            job_id = queue.enqueue(conn, "call_without_timeout", {"booking_id": 984})
            claimed = processes.wait_until(
                lambda: conn.execute("SELECT extract(epoch FROM claimed_at)::float8 FROM jobs WHERE id = %s "
                                     "AND attempts = 1", [job_id]).fetchone(), timeout_s, what="the claim")[0]
            samples = []
            while (now := time.time()) - claimed < watch_s:
                attempts, left = conn.execute("SELECT attempts, extract(epoch FROM run_at - now())::float8 "
                                              "FROM jobs WHERE id = %s", [job_id]).fetchone()
                samples.append(LeaseSample(now - claimed, attempts, left))
                time.sleep(every_s)
        finally:
            child.kill()  # SIGTERM would wait for the handler, for ever
        conn.execute("DELETE FROM jobs WHERE id = %s", [job_id])
        return samples
