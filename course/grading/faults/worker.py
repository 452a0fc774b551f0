"""A worker process for the fault injector: `python -m course.grading.faults.worker SPEC SLOT INCARNATION`.

It runs the ordinary course.core.worker.Worker on the scenario's handler, with hooks that write every step
to the run's history and SIGKILL this very process at the points the scenario names (until the run's
kill budget is spent). Its random choices are seeded from the run's seed, the slot and the incarnation, so a run can
be replayed.
"""

from __future__ import annotations

import logging
import os
import random
import select
import signal
import sys
import threading
from functools import partial

from psycopg.conninfo import make_conninfo

from course.infra import db, eventlog, processes
from course.core import queue
from course.core.operations import reference_operations
from course.core.worker import Hooks, Registry, Settings, Worker
from course.grading.faults import TASK

MID_WORK = "while the job was running"
AFTER_WORK = "after the work, before the ack"


class Recorder(Hooks):
    def __init__(self, history: str, started_at: float, slot: int, faults, rng: random.Random, calm_fd: int | None):
        self.history, self.started_at, self.slot = history, started_at, slot
        self.faults, self.rng, self.calm_fd = faults, rng, calm_fd
        self._running: dict[int, object] = {}  # job id -> job, between started and finished
        self._unacked: dict[int, object] = {}  # job id -> job, finished and waiting for the batched ack
        self._lock = threading.Lock()

    def _write(self, kind: str, job=None, detail: str = "") -> None:
        eventlog.record(self.history, since=self.started_at, worker=self.slot, kind=kind,
                        job=getattr(job, "id", job), attempt=getattr(job, "attempts", None), detail=detail)

    def _die(self, job, why: str) -> None:
        """SIGKILL this process, after writing the kill into the timeline of every job it holds."""
        with self._lock:
            if why == MID_WORK and job.id not in self._running:
                return  # the job finished before the timer fired: no longer "mid-work"
            self._write("killed", job, f"SIGKILL injected {why}")
            for other in self._running.values():
                if other is not job:
                    self._write("killed", other, f"went down with its worker (SIGKILL injected for job {job.id})")
            # Work done but not yet acked is lost too: the job runs again once its lease runs out.
            for other in self._unacked.values():
                self._write("killed", other, f"its ack went down with its worker (SIGKILL injected for job {job.id})")
            os.kill(os.getpid(), signal.SIGKILL)

    def _injecting(self) -> bool:
        """False once the run's kill budget is spent: the supervisor then closes its end of the calm pipe,
        and ours reads as ended (None: always injecting)."""
        return self.calm_fd is None or not select.select([self.calm_fd], [], [], 0)[0]

    def claimed(self, jobs) -> None:
        for job in jobs:
            self._write("claimed", job)

    def started(self, job) -> None:
        with self._lock:
            self._running[job.id] = job
        self._write("started", job)
        if self._injecting() and self.rng.random() < self.faults.kill_mid_work:
            # Die a little later, from another thread, while the handler is (probably) still at work.
            delay = self.rng.uniform(0.0, 0.2)
            threading.Timer(delay, self._die, args=(job, MID_WORK)).start()

    def finished(self, job, error) -> None:
        self._write("failed" if error else "finished", job, f"{type(error).__name__}: {error}" if error else "")
        if self._injecting() and self.rng.random() < self.faults.kill_after_work:
            self._die(job, AFTER_WORK)
        with self._lock:
            self._running.pop(job.id, None)
            if error is None:
                self._unacked[job.id] = job

    def acked(self, ids) -> None:
        with self._lock:
            for job_id in ids:
                self._unacked.pop(job_id, None)
        for job_id in sorted(ids):
            self._write("acked", job_id)


def queue_operations(scenario):
    """The reference queue, with the learner's lease extension and quick retries where the scenario says."""
    ops = reference_operations(fail=partial(queue.fail, backoff=lambda attempt: scenario.retry_delay_s))
    if scenario.extend_lease is not None:
        def extend_leases(conn, jobs, lease_s):
            return {job.id for job in jobs if scenario.extend_lease(conn, job, lease_s)}
        ops.extend_leases = extend_leases
    return ops


def main(argv: list[str]) -> int:
    spec_path, slot, incarnation = argv[0], int(argv[1]), int(argv[2])
    spec = processes.unpickle(spec_path)
    scenario = spec["scenario"]
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    registry = Registry()
    registry.handler(TASK)(scenario.handler)
    rng = random.Random(f"{spec['seed']}:{slot}:{incarnation}")
    hooks = Recorder(spec["history"], spec["started_at"], slot, scenario.faults, rng, spec["calm_fd"])
    conninfo = make_conninfo(db.reached_here(spec["conninfo"]), application_name=f"faultworker-{spec['seed']}-{slot}")
    settings = Settings(concurrency=scenario.concurrency, lease_s=scenario.lease_s, poll_interval_s=0.2)
    # The run's time limit counts from here: starting Python and importing takes seconds on a busy machine.
    eventlog.record(spec["history"], since=spec["started_at"], worker=slot, kind="ready")
    return Worker(conninfo, registry, settings, hooks=hooks, ops=queue_operations(scenario)).run()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
