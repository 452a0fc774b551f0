"""A pool of worker processes for a measurement: started together, measured from the moment they listen.

A lab that times how long a job waits must not count the second or so a new Python process takes to
import the course and connect. `start()` returns only once every worker has its LISTEN connection
open, so the first job enqueued afterwards wakes a worker at once:

    pool = pools.start("course.programs.newsletter:handlers", schema="lab09", queues=["urgent", "bulk"])
    ...                     # enqueue, measure
    pool.stop()             # SIGTERM: each worker finishes the job in hand, then exits

Each worker's connections carry an application_name of its own (`lab09-urgent-0`), which is how we
see them in pg_stat_activity, and how a lab tells its workers from everyone else's.
"""

from __future__ import annotations

import secrets
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from course.infra import db, processes
from course.core import worker
from course.errors import CourseError

READY_TIMEOUT_S = 60.0  # a loaded machine can take many seconds to start a dozen Python processes


class WorkersDidNotStart(CourseError):
    """A worker process exited, or never opened its connections."""


@dataclass
class Pool:
    schema: str
    names: list[str]  # application_name of each worker, in the order of `queues`
    queues: list[str]
    children: list[processes.Child]

    def alive(self) -> int:
        return sum(child.alive() for child in self.children)

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM every worker (each drains the jobs it holds), SIGKILL any that will not stop in time."""
        for child in self.children:
            child.signal(signal.SIGTERM)  # all at once: they drain in parallel
        deadline = time.monotonic() + timeout
        for child in self.children:
            try:
                child.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()

    def describe(self) -> str:
        """'2 worker processes (1 on 'urgent', 1 on 'bulk')': a line without pids, the same every run."""
        per_queue = Counter(self.queues)  # keeps the order the queues were given in
        where = ", ".join(f"{count} on {name!r}" for name, count in per_queue.items())
        plural = "es" if len(self.queues) != 1 else ""
        return f"{len(self.queues)} worker process{plural} ({where})"


def start(app: str, *, schema: str, queues: Sequence[str] = ("default",), concurrency: int = 1,
          lease_s: float = 30.0, env: Mapping[str, str] | None = None, prefix: str | None = None,
          ready_timeout: float = READY_TIMEOUT_S) -> Pool:
    """Start one worker process per entry of `queues` (a queue name may repeat); return once all listen."""
    prefix = prefix or f"{schema}-{secrets.token_hex(2)}"
    names, children = [], []
    try:
        for index, queue_name in enumerate(queues):
            name = f"{prefix}-{queue_name}-{index}"
            dsn = db.conninfo(schema, application_name=name)
            children.append(worker.spawn(app, dsn=dsn, queue=queue_name, concurrency=concurrency, lease_s=lease_s,
                                         poll_interval_s=0.5, name=name, env=dict(env or {})))
            names.append(name)
        pool = Pool(schema, names, list(queues), children)
        _wait_until_listening(pool, ready_timeout)
    except BaseException:
        for child in children:
            if child.alive():
                child.kill()
        raise
    return pool


def listening(names: Sequence[str]) -> int:
    """How many of these workers have their LISTEN connection open right now."""
    with db.connect() as conn:
        return conn.execute(
            "SELECT count(DISTINCT application_name) FROM pg_stat_activity "
            "WHERE application_name = ANY(%s) AND query LIKE 'LISTEN%%'", [list(names)]).fetchone()[0]


def _wait_until_listening(pool: Pool, timeout: float) -> None:
    def ready() -> bool:
        for child in pool.children:
            if not child.alive():
                raise WorkersDidNotStart(f"worker {child.name} exited with code {child.wait()} before it "
                                         f"was ready:\n{child.log_tail(12)}")
        return listening(pool.names) == len(pool.names)

    try:
        processes.wait_until(ready, timeout, interval=0.05, what="every worker listening")
    except TimeoutError:
        tail = pool.children[0].log_tail(8) if pool.children else ""
        raise WorkersDidNotStart(f"only {listening(pool.names)} of {len(pool.names)} workers were listening "
                                 f"after {timeout:g} s (is the machine very busy?). The first one's log:\n"
                                 f"{tail}") from None
