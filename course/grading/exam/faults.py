"""The exam's network and database failing under the workers: the run's own PostgreSQL, and the plan of
when its connections are cut and it is restarted.

    box = Database(PrivateServer())     the server, and a connection of a thread's own that survives a restart
    plan = FaultPlan.draw(rng, jobs)    seeded: after so many jobs done, cut one connection / all / restart
    cut_and_restart(box, ...)           a thread of the run (soak.py) that carries the plan out

The server is the run's own (course.infra.private_server): the course's shared server, which notebooks
and tests use at the same time, is never restarted.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass

import psycopg

from course.grading.exam.worker import DISCONNECTED
from course.infra.private_server import PrivateServer

CUTS = 4  # single worker backends terminated at seeded random points of the drain
RESTART_MODES = ("fast", "immediate")  # fast: clients are told; immediate: a crash, recovered from the WAL
SCHEMA = "exam"
CONNECT_LIMIT_S = 90.0  # how long a connection is tried again while the server restarts (1-10 s under load)


class Database:
    """The run's own PostgreSQL (restarted on purpose), and one connection of a thread's own to it that
    survives the restart: `query` connects again when the server went away under it."""

    def __init__(self, server: PrivateServer):
        self.server = server
        self.conninfo = server.conninfo(schema=SCHEMA)
        self._conn = None

    def connect(self, *, autocommit: bool = True) -> psycopg.Connection:
        deadline = time.monotonic() + CONNECT_LIMIT_S
        while True:
            try:
                return psycopg.connect(self.conninfo, autocommit=autocommit, connect_timeout=5)
            except DISCONNECTED:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def another(self) -> "Database":
        """The same server through a connection of its own (one for each thread)."""
        return Database(self.server)

    def query(self, statement: str, params=None) -> list[tuple]:
        for attempt in (1, 2):
            if self._conn is None or self._conn.closed or self._conn.broken:
                self._conn = self.connect()
            try:
                return self._conn.execute(statement, params).fetchall()
            except DISCONNECTED:
                if attempt == 2 or not (self._conn.closed or self._conn.broken):
                    raise

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()


@dataclass(frozen=True)
class FaultPlan:
    """When the network and the database fail, in jobs done (not seconds: a replay on a slower machine
    meets the same faults at the same point of the drain). Drawn from the run's seed."""

    cuts: tuple[int, ...]  # after so many jobs done, one worker backend is terminated
    cut_all: int  # after so many, every worker connection at once
    restart: int  # after so many, PostgreSQL restarts ...
    restart_mode: str  # ... with this pg_ctl stop mode

    @classmethod
    def draw(cls, rng: random.Random, jobs: int) -> "FaultPlan":
        return cls(cuts=tuple(sorted(rng.sample(range(2, jobs - 4), CUTS))), cut_all=rng.randrange(jobs // 5, jobs // 3),
                   restart=rng.randrange(jobs // 2 - 3, jobs // 2 + 3), restart_mode=rng.choice(RESTART_MODES))

    def describe(self) -> str:
        return (f"one connection cut after {', '.join(map(str, self.cuts))} jobs done, all of them after {self.cut_all}, "
                f"PostgreSQL restarted (-m {self.restart_mode}) after {self.restart}")


def cut_and_restart(box: Database, fault: threading.Lock, note, plan: FaultPlan, rng: random.Random, total: int,
                    app: str, row_cue: threading.Thread, done: threading.Event) -> None:
    """Cue 3: the plan's faults, each when so many jobs are done, under the run's fault lock. The restart
    waits for the row-lock cue to end (it watches a lock that a restart would release)."""
    admin = box.another()
    todo = sorted([(n, "cut") for n in plan.cuts] + [(plan.cut_all, "cut_all"), (plan.restart, "restart")])
    try:
        while todo and not done.is_set():
            at, kind = todo[0]
            finished = total - admin.query("SELECT count(*) FROM jobs")[0][0]
            if finished < at or (kind == "restart" and row_cue.is_alive()):
                time.sleep(0.05)
                continue
            if not fault.acquire(timeout=0.05):
                continue
            try:
                if kind == "restart":
                    note(kind="restarting", detail=f"PostgreSQL stopped with -m {plan.restart_mode}")
                    box.server.restart(plan.restart_mode)
                    note(kind="restarted", detail="PostgreSQL is up again")
                else:
                    backends = [pid for pid, in admin.query(
                        "SELECT pid FROM pg_stat_activity WHERE application_name LIKE %s "
                        "ORDER BY application_name, pid", [f"{app}-%"])]
                    chosen = backends if kind == "cut_all" else [rng.choice(backends)] if backends else []
                    cut = admin.query("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) "
                                      "FROM unnest(%s::int[]) AS pid", [chosen])[0][0]
                    note(kind="cut", facts={"backends": cut},
                         detail=f"{cut} worker connection(s) terminated (pg_terminate_backend)")
            finally:
                fault.release()
            todo.pop(0)
    finally:
        admin.close()
