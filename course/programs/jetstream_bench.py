"""The benchmark's no-op drain, small enough for a notebook cell: the Postgres queue beside JetStream.

A drain fills a queue with `jobs` no-op jobs, then times real worker processes emptying it. As in
`python -m course bench`, nothing slow is timed: the workers are started and connected first, and the
clock starts when the jobs become visible (a commit; or, on JetStream, a "go" to consumers waiting
with the messages already stored) and stops when the queue is empty.

    drain_postgres(schema, jobs)              course.core.worker processes on the course database
    drain_jetstream(servers, jobs, replicas)  course.programs.jetstream_queue consumer processes on a cluster
    footprint(cluster)                        what the cluster costs to run: processes, memory, disk, ports

The figures vary from run to run and machine to machine: compare rows measured side by side, never
with numbers from elsewhere.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import nats.errors

from course.errors import BrokerUnavailable
from course.infra import broker, db, nats_cluster, nats_server, processes
from course.core import queue, worker
from course.programs import jetstream_consumer
from course.programs import jetstream_queue as jq
from course.programs import jetstream_run

NOOP_APP = "course.evidence.benchmarks.apps:handlers"  # the benchmark's own no-op handler
DEADLINE_S = 120.0


@dataclass(frozen=True)
class Drain:
    what: str
    jobs: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.jobs / self.seconds


async def noop(task) -> None:
    """The consumers' handler in a drain: nothing, so what is measured is the queue."""


# -- PostgreSQL ------------------------------------------------------------------------------------


def drain_postgres(schema: str, jobs: int, *, workers: int = 2, concurrency: int = 32) -> Drain:
    """Enqueue `jobs` no-op jobs in one transaction while the workers wait; time them emptying the table."""
    with db.connect(schema) as conn:
        queue.install(conn)
        conn.execute("TRUNCATE jobs")
        team = [worker.spawn(NOOP_APP, schema=schema, concurrency=concurrency, lease_s=60, name=f"pg-worker{i}")
                for i in range(workers)]
        try:
            _wait_listening(conn, team, schema)
            queue.enqueue_many(conn, "noop", [{} for _ in range(jobs)])  # visible at its commit
            started = time.perf_counter()
            deadline = time.monotonic() + DEADLINE_S
            while conn.execute("SELECT EXISTS (SELECT FROM jobs)").fetchone()[0]:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the Postgres drain of {jobs} jobs took over {DEADLINE_S:.0f} s")
                time.sleep(0.005)
            return Drain(f"Postgres queue, {workers} workers", jobs, time.perf_counter() - started)
        finally:
            for child in team:
                child.terminate(10)


def _wait_listening(conn, team, schema: str) -> None:
    """Until every worker has connected (and LISTENs): a started process is not yet a ready one."""
    def ready():
        for child in team:
            if not child.alive():
                raise RuntimeError(f"{child.name} exited:\n{child.log_tail(10)}")
        listening = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE query = %s",
                                 [f'LISTEN "jobs:{schema}"']).fetchone()[0]
        return listening >= len(team)

    processes.wait_until(ready, 60, interval=0.02, what="the workers to connect")


# -- JetStream -------------------------------------------------------------------------------------


def drain_jetstream(servers: broker.Servers, jobs: int, *, replicas: int = 3, consumers: int = 2,
                    concurrency: int = 256) -> Drain:
    """Store `jobs` messages in a work-queue stream with `replicas` copies; time consumers emptying it."""
    servers = broker.server_list(servers)
    work = jq.WorkQueue(f"DRAIN_R{replicas}", replicas=replicas, ack_wait_s=60, max_deliver=5)
    jq.reset(work, servers)
    broker.run(_fill(servers, work.subject("noop"), jobs), timeout=DEADLINE_S)
    go = f"drain.go.{work.name}"
    settings = jetstream_consumer.ConsumerSettings(concurrency=concurrency, route_dead_letters=False, go_subject=go)
    team = jetstream_run.spawn_consumers(work, noop, servers, consumers, settings=settings, name=f"drain-r{replicas}-")
    try:
        jetstream_run.wait_ready(team)
        seconds = broker.run(_go_and_time(servers, go, work.name), timeout=DEADLINE_S + 10)
        return Drain(f"JetStream R{replicas}, {consumers} consumers", jobs, seconds)
    finally:
        for child in team:
            child.terminate(10)
        broker.delete_stream(work.name, url=servers)


async def _fill(servers: list[str], subject: str, jobs: int, in_flight: int = 500) -> None:
    """Publish quickly: many publishes in flight at once, each still waiting for its ack."""
    nc = await broker.connect(servers)
    js = nc.jetstream(timeout=30)
    try:
        for start in range(0, jobs, in_flight):
            await asyncio.gather(*(js.publish(subject, b"{}") for _ in range(start, min(jobs, start + in_flight))))
    finally:
        await nc.close()


async def _go_and_time(servers: list[str], go_subject: str, stream: str) -> float:
    nc = await broker.connect(servers)
    js = nc.jetstream(timeout=5)
    try:
        await nc.publish(go_subject, b"go")
        await nc.flush()
        started = time.perf_counter()
        deadline = time.monotonic() + DEADLINE_S
        while True:
            try:
                if (await js.stream_info(stream)).state.messages == 0:
                    return time.perf_counter() - started
            except nats.errors.TimeoutError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"the JetStream drain of stream {stream} took over {DEADLINE_S:.0f} s")
            await asyncio.sleep(0.005)
    finally:
        await nc.close()


# -- what it costs to run ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Footprint:
    processes: int
    memory_mb: float  # resident, all nodes
    disk_mb: float  # the nodes' stores
    ports: int  # client + cluster route + monitoring, per node


def footprint(cluster: nats_cluster.Cluster) -> Footprint:
    nodes = [node for node in cluster.nodes.values() if node.alive()]
    memory = sum(_resident_mb(node.pid) for node in nodes)
    disk = sum(_folder_mb(node.folder / "store") for node in cluster.nodes.values())
    return Footprint(len(nodes), memory, disk, 3 * len(cluster.nodes))


def _resident_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _folder_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20 if folder.exists() else 0.0


# -- one job at a time: what a producer waits for ----------------------------------------------------


def enqueue_latency_postgres(schema: str, jobs: int = 500) -> float:
    """Median seconds for one enqueue that commits on its own (the job is durable when it returns).

    The median, not the mean: on a busy machine one stalled call must not decide the figure.
    """
    with db.connect(schema) as conn:
        queue.install(conn)
        took = []
        for _ in range(jobs):
            started = time.perf_counter()
            queue.enqueue(conn, "noop", {}, notify=False)
            took.append(time.perf_counter() - started)
        conn.execute("TRUNCATE jobs")
    return statistics.median(took)


def publish_latency(servers: broker.Servers, replicas: int, jobs: int = 500) -> float:
    """Median seconds for one publish that waits for its ack (stored on a majority of `replicas` nodes)."""
    servers = broker.server_list(servers)
    stream = f"LATENCY_R{replicas}"
    broker.ensure_stream(stream, [f"latency{replicas}.>"], replicas=replicas, url=servers)

    async def one_by_one() -> float:
        nc = await broker.connect(servers)
        js = nc.jetstream(timeout=10)
        try:
            took = []
            for _ in range(jobs):
                started = time.perf_counter()
                await js.publish(f"latency{replicas}.x", b"{}")
                took.append(time.perf_counter() - started)
            return statistics.median(took)
        finally:
            await nc.close()

    try:
        return broker.run(one_by_one(), timeout=DEADLINE_S)
    finally:
        broker.delete_stream(stream, url=servers)


def sync_interval_s(cluster: nats_cluster.Cluster) -> float:
    """How often the cluster's servers force their JetStream files to disk (nats-server's sync_interval)."""
    for node in cluster.nodes.values():
        varz = nats_server.monitor(node.monitor_port, "/varz") if node.alive() else None
        if varz:
            return varz["jetstream"]["config"]["sync_interval"] / 1e9
    raise BrokerUnavailable("no node of the cluster answered on its monitoring port")
