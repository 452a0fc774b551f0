"""The benchmark's measurements, one function each. They return numbers and print nothing.

Every drain is timed the same way: the jobs become visible at one instant (a COPY and its commit, or a
go signal to processes already connected), and the clock stops when the last one is done. Starting
Python, importing libraries and connecting are never timed. Each drain gets a fresh jobs table that
already has planner statistics, as a queue that has run for a while has.
"""

from __future__ import annotations

import os
import re
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql as pgsql
from psycopg.conninfo import make_conninfo

from course.infra import pgserver
from course.core import queue, sql, worker
from course.infra.processes import wait_until
from course.evidence.benchmarks import cpu
from course.evidence.benchmarks.apps import LATENCY_TABLE
from course.evidence.benchmarks.cpu import Spent
from course.evidence.benchmarks.linechild import DEADLINE_S, LineChild
from course.evidence.benchmarks.peers import SUCCEEDED as PEER_SUCCEEDED
from course.evidence.benchmarks.peers import TABLE as PEER_TABLE
from course.evidence.benchmarks.peers import UNFINISHED as PEER_UNFINISHED
from course.infra.private_server import PrivateServer

SCHEMA = "bench"
PEER_DATABASE = "bench_peer"
WORKER_APP = "course.evidence.benchmarks.apps:handlers"
WORKER_NAME = "bench-worker"  # application_name of the workers' connections: how we see them idle
LEASE_S = 60.0  # longer than any drain: no lease runs out while we measure


@dataclass(frozen=True)
class Drain:
    jobs: int
    seconds: float
    dead_tuples: int | None = None  # left in the table right after the drain
    # CPU seconds the drain cost: the draining processes' (client) and the server's, the fill included
    # (each contender's own: our COPY, a peer's batch enqueue) and our polling for the end left out; a
    # peer's client CPU counts from its fill's commit, so the work of building its batch is left out.
    cpu: Spent | None = None

    @property
    def rate(self) -> float:
        return self.jobs / self.seconds

    def cpu_per_job_us(self) -> tuple[float, float] | None:
        """(client, server) CPU microseconds per job."""
        if self.cpu is None:
            return None
        return self.cpu.client_s / self.jobs * 1e6, self.cpu.server_s / self.jobs * 1e6


class Bench:
    """A private server, a pool of drainer processes, and the measurements that use them."""

    def __init__(self, server: PrivateServer):
        self.server = server
        self.admin = psycopg.connect(server.conninfo(), autocommit=True)
        self.admin.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")  # exact dead-tuple counts
        self.drainers: list[LineChild] = []
        self.children: list = []  # every other process we started and have not stopped yet

    def close(self) -> None:
        for child in self.drainers + self.children:
            if isinstance(child, LineChild):
                child.stop()
            else:
                child.terminate(10)  # a worker: SIGTERM, then SIGKILL if it will not stop
        self.drainers, self.children = [], []
        self.admin.close()

    def spent(self, pids: list[int]) -> Spent:
        """CPU seconds so far of these processes and of the whole server."""
        return Spent(cpu.process_seconds(pids), cpu.server_seconds(self.server.server.postmaster_pid()))

    @staticmethod
    def polling(conn: psycopg.Connection) -> float:
        """CPU seconds so far of the backend serving `conn`: what our own polling costs the server (a poll
        reads the drained table, dead rows and all), to be left out of a drain's figure."""
        return cpu.process_seconds([conn.info.backend_pid])

    def until_backends_gone(self, application_name: str) -> None:
        """Wait until no backend serves `application_name` any more, and the postmaster has reaped
        them: an exiting backend's CPU time is in neither its own /proc entry nor its parent's yet."""
        query = "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
        wait_until(lambda: not self.admin.execute(query, [application_name]).fetchone()[0], 30,
                   what=f"{application_name} to disconnect")
        postmaster = self.server.server.postmaster_pid()
        wait_until(lambda: not cpu.exiting_children(postmaster), 30, what="exited backends to be reaped")

    # -- the jobs table --------------------------------------------------------------------------

    def fresh_jobs_table(self) -> psycopg.Connection:
        """A new empty jobs table in the schema `bench`; a connection to it."""
        self.admin.execute(pgsql.SQL("DROP SCHEMA IF EXISTS {s} CASCADE; CREATE SCHEMA {s}").format(
            s=pgsql.Identifier(SCHEMA)))
        conn = psycopg.connect(self.server.conninfo(SCHEMA), autocommit=True)
        queue.install(conn)
        return conn

    @staticmethod
    def fill(conn: psycopg.Connection, n: int, *, notify: bool = False, analyze: bool = True) -> float:
        """COPY n no-op jobs in one transaction; return time.monotonic() right after the commit.

        ANALYZE runs inside the transaction, which sees its own rows: the planner has statistics from
        the moment the jobs become visible.
        """
        with conn.transaction():
            with conn.cursor().copy("COPY jobs (type) FROM STDIN") as copy:
                for _ in range(n):
                    copy.write_row(("noop",))
            if analyze:
                conn.execute("ANALYZE jobs")
            if notify:
                conn.execute(sql.query("queue", "notify"), {"queue": queue.DEFAULT_QUEUE})
        return time.monotonic()

    @staticmethod
    def dead_tuples(conn: psycopg.Connection, table: str) -> int:
        return conn.execute("SELECT dead_tuple_count FROM public.pgstattuple(%s::regclass)", [table]).fetchone()[0]

    @staticmethod
    def no_dead_letters(conn: psycopg.Connection, jobs: int) -> None:
        """An empty jobs table means each job was acked or dead-lettered: none may be the second."""
        dead = conn.execute("SELECT count(*) FROM dead_jobs").fetchone()[0]
        if dead:
            raise RuntimeError(f"{dead} of {jobs} jobs were dead-lettered, not run: the drain measured nothing")

    @staticmethod
    def wait_until_empty(conn: psycopg.Connection, query: str, since: float | None = None) -> float:
        """Poll `query` (true while work is left); return the moment it turned false.

        The poll waits 1 % of the time the drain has taken so far (3 ms at least): each poll is a
        statement on the table being drained, paid by the contenders timed this way (our workers,
        pgqueuer) and not by the bare loops, which time themselves; every 3 ms that was hundreds a
        second however long the drain. (Its effect on the ratios was within the noise of a paired
        test at 4 processes, 2026-12-01; fewer is still the cleaner measurement.) The end fell
        between the last poll that saw work and the first that saw none: the midpoint is the
        estimate, off by at most half a poll interval, either way.
        """
        since = time.monotonic() if since is None else since
        last_busy = asked = time.monotonic()  # when the poll that saw work, and the latest poll, were sent
        while conn.execute(query).fetchone()[0]:
            if asked > since + DEADLINE_S:
                raise TimeoutError(f"the queue did not drain within {DEADLINE_S:.0f} s")
            time.sleep(max(0.003, (asked - since) * 0.01))
            last_busy, asked = asked, time.monotonic()
        return (last_busy + asked) / 2

    # -- tight loops in drainer processes ----------------------------------------------------------

    def drain_loop(self, loop: str, batch: int, processes: int, jobs: int) -> Drain:
        self.drainers = [d for d in self.drainers if d.popen.poll() is None]  # one that failed is replaced
        while len(self.drainers) < processes:
            self.drainers.append(LineChild(f"drainer{len(self.drainers)}",
                                           [sys.executable, "-m", "course.evidence.benchmarks.drainer"]))
        team = self.drainers[:processes]
        pids = [drainer.popen.pid for drainer in team]
        with self.fresh_jobs_table() as conn:
            server_before = self.spent([]).server_s
            self.fill(conn, jobs)
            for drainer in team:
                drainer.send({"conninfo": self.server.conninfo(SCHEMA), "loop": loop, "batch": batch})
            for drainer in team:
                drainer.receive(60)
            client_before = self.spent(pids).client_s  # a new drainer has finished starting Python
            started = time.monotonic()
            for drainer in team:
                drainer.send("go")
            answers = [drainer.receive() for drainer in team]
            done = sum(a["jobs"] for a in answers)
            left = conn.execute("SELECT count(*) FROM jobs").fetchone()[0]
            if done != jobs or left:
                raise RuntimeError(f"{loop} loop: {done} jobs claimed of {jobs}, {left} left in the table")
            after = self.spent(pids)
            spent = Spent(after.client_s - client_before, after.server_s - server_before)
            return Drain(jobs, max(a["finished"] for a in answers) - started, self.dead_tuples(conn, "jobs"), spent)

    # -- reference workers -------------------------------------------------------------------------

    def start_workers(self, processes: int, concurrency: int, *, listen: bool = True) -> list:
        dsn = self.server.conninfo(application_name=WORKER_NAME)
        started = [worker.spawn(WORKER_APP, schema=SCHEMA, dsn=dsn, concurrency=concurrency, lease_s=LEASE_S,
                                listen=listen, name=f"bench-worker{i}") for i in range(processes)]
        self.children.extend(started)
        # Ready: each has its connection open (and, listening, its LISTEN connection waiting).
        query = ("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
                 + (" AND query LIKE 'LISTEN%%'" if listen else ""))
        try:
            wait_until(lambda: self.admin.execute(query, [WORKER_NAME]).fetchone()[0] >= len(started),
                                 60, what="the workers to connect")
        except TimeoutError:
            raise RuntimeError("workers did not start: " + started[0].log_tail()) from None
        return started

    def stop(self, children: list) -> None:
        for child in children:
            child.terminate(15)
            self.children.remove(child)

    def drain_workers(self, processes: int, concurrency: int, jobs: int) -> Drain:
        with self.fresh_jobs_table() as conn:
            team = self.start_workers(processes, concurrency)
            pids = [child.pid for child in team]
            try:
                before = self.spent(pids)
                started = self.fill(conn, jobs, notify=True)
                polls_before = self.polling(conn)
                finished = self.wait_until_empty(conn, "SELECT EXISTS (SELECT FROM jobs)", since=started)
                polls = self.polling(conn) - polls_before
                spent = self.spent(pids) - before - Spent(0.0, polls)
                self.no_dead_letters(conn, jobs)
                return Drain(jobs, finished - started, self.dead_tuples(conn, "jobs"), spent)
            finally:
                self.stop(team)

    def latencies(self, samples: int, *, listen: bool, rng) -> tuple[list[float], list[float]]:
        """Seconds from a producer calling enqueue() to the handler starting, one job at a time; and
        how long each of those enqueue() calls took (INSERT, NOTIFY, commit: its share of the first).

        Jobs arrive at random moments with the worker idle (what a web app's receipts look like at
        night). Without LISTEN, a job waits for the next poll: half a poll interval on average.
        """
        with self.fresh_jobs_table() as conn:
            conn.execute(LATENCY_TABLE)
            team = self.start_workers(1, 4, listen=listen)
            try:
                self._stamp(conn, 5, listen, lambda: None)  # warm-up: the handler's connection pool opens
                conn.execute("TRUNCATE started")
                gap = (lambda: rng.uniform(0.005, 0.03)) if listen else (lambda: rng.uniform(0.0, 0.15))
                enqueue_s = self._stamp(conn, samples, listen, lambda: time.sleep(gap()))
                return [row[0] for row in conn.execute("SELECT latency_s FROM started")], enqueue_s
            finally:
                self.stop(team)

    def _stamp(self, conn, n: int, listen: bool, pause) -> list[float]:
        took = []
        for _ in range(n):
            pause()
            sent = time.time()
            queue.enqueue(conn, "stamp", {"sent": sent}, notify=listen)
            took.append(time.time() - sent)
        wait_until(lambda: conn.execute("SELECT count(*) FROM started").fetchone()[0] >= n, 60,
                             what="the stamped jobs to start")
        return took

    # -- enqueue rates -----------------------------------------------------------------------------

    def enqueue_rate(self, how: str, jobs: int) -> float:
        """Jobs stored per second: one enqueue() and commit each, enqueue_many() 1,000 at a time, COPY."""
        with self.fresh_jobs_table() as conn:
            started = time.monotonic()
            if how == "one by one":
                for i in range(jobs):
                    queue.enqueue(conn, "noop", {"i": i}, notify=False)
            elif how == "batched":
                for first in range(0, jobs, 1000):
                    queue.enqueue_many(conn, "noop", [{"i": i} for i in range(first, min(first + 1000, jobs))],
                                       notify=False)
            else:
                self.fill(conn, jobs, analyze=False)
            return jobs / (time.monotonic() - started)

    # -- the physical limit ------------------------------------------------------------------------

    def pgbench(self, clients: int, transactions: int) -> Drain:
        """pgbench running `INSERT a job; DELETE it` as one transaction: the least a queue must do."""
        with self.fresh_jobs_table() as conn:
            script = self.server.home / "insert_delete.sql"
            script.write_text("BEGIN;\n"
                              "INSERT INTO jobs (type) VALUES ('noop') RETURNING id \\gset\n"
                              "DELETE FROM jobs WHERE id = :id;\n"
                              "END;\n")
            per_client = max(1, transactions // clients)
            server_before, children_before = self.spent([]).server_s, _children_cpu_s()
            result = subprocess.run(
                [pgserver.binary("pgbench"), "-n", "-h", str(self.server.server.socket_dir),
                 "-p", str(pgserver.PORT), "-U", pgserver.SUPERUSER, "-c", str(clients), "-j", str(clients),
                 "-t", str(per_client), "-f", str(script), pgserver.DBNAME],
                capture_output=True, text=True, timeout=DEADLINE_S,
                env={**os.environ, "PGOPTIONS": f"-c search_path={SCHEMA}",
                     "PGPASSFILE": str(self.server.server.password_file)})  # a path, not the password
            self.until_backends_gone("pgbench")  # their CPU is counted once the postmaster has reaped them
            spent = Spent(_children_cpu_s() - children_before, self.spent([]).server_s - server_before)
            match = re.search(r"tps = ([\d.]+) \(without initial connection time\)", result.stdout)
            if result.returncode != 0 or not match:
                raise RuntimeError(f"pgbench failed: {result.stdout[-500:]}{result.stderr[-500:]}")
            tps = float(match.group(1))
            done = per_client * clients
            processed = re.search(r"number of transactions actually processed: (\d+)/", result.stdout)
            left = conn.execute("SELECT count(*) FROM jobs").fetchone()[0]
            if not processed or int(processed.group(1)) != done or left:
                raise RuntimeError(f"pgbench: {processed and processed.group(1)} of {done} transactions, "
                                   f"{left} jobs left in the table")
            return Drain(done, done / tps, self.dead_tuples(conn, "jobs"), spent)

    # -- peers ---------------------------------------------------------------------------------------

    def drain_peer(self, peer: str, processes: int, jobs: int, driver: str = "asyncpg",
                   options: tuple[str, ...] = ()) -> Drain:
        """pgqueuer or procrastinate, `processes` of them on a database of their own, draining the same
        no-op jobs. The first installs the peer's tables; the rest start once it is ready. Starting
        them is not timed: the clock starts at the fill's commit, as for our workers."""
        self.admin.execute(pgsql.SQL("DROP DATABASE IF EXISTS {d} WITH (FORCE)").format(
            d=pgsql.Identifier(PEER_DATABASE)))
        self.admin.execute(pgsql.SQL("CREATE DATABASE {d}").format(d=pgsql.Identifier(PEER_DATABASE)))
        conninfo = make_conninfo(self.server.conninfo(), dbname=PEER_DATABASE)
        argv = [sys.executable, "-m", "course.evidence.benchmarks.peers", peer, "--conninfo", conninfo,
                "--driver", driver, *options]
        team: list[LineChild] = []
        try:
            team.append(LineChild(f"bench-{peer}0", argv))
            self.children.append(team[0])
            team[0].receive(120)  # ready: tables installed, consumers listening
            for i in range(1, processes):
                team.append(LineChild(f"bench-{peer}{i}", [*argv, "--no-install"]))
                self.children.append(team[-1])
            for child in team[1:]:
                child.receive(120)
            with psycopg.connect(conninfo, autocommit=True) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
                pids = [child.popen.pid for child in team]
                server_before = self.spent([]).server_s
                team[0].send(f"fill {jobs}")
                started = team[0].receive()["filled"]
                client_before, polls_before = self.spent(pids).client_s, self.polling(conn)
                finished = self.wait_until_empty(conn, PEER_UNFINISHED[peer], since=started)
                polls = self.polling(conn) - polls_before
                after = self.spent(pids) - Spent(0.0, polls)
                succeeded = conn.execute(PEER_SUCCEEDED[peer]).fetchone()[0]
                if succeeded != jobs:
                    raise RuntimeError(f"{peer}: {succeeded} of {jobs} jobs ran to success")
                spent = Spent(after.client_s - client_before, after.server_s - server_before)
                return Drain(jobs, finished - started, self.dead_tuples(conn, PEER_TABLE[peer]), spent)
        finally:
            for child in team:
                child.close_input()  # all of them at once: they shut down side by side
            for child in team:
                child.stop()
                self.children.remove(child)

def _children_cpu_s() -> float:
    """User + system CPU of our child processes that have ended (pgbench, once subprocess.run returns)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100), interpolated; what p50 and p99 mean below."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(sorted(values), n=100, method="inclusive")[round(q) - 1]


def home_for_results() -> Path:
    from course.infra.db import project_home

    path = project_home()
    path.mkdir(parents=True, exist_ok=True)
    return path
