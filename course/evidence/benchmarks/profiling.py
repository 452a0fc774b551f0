"""Evidence for `python -m course bench --profile`: the claim's plan, and where a worker's time goes."""

from __future__ import annotations

import collections
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from course.evidence.benchmarks import peers
from course.evidence.benchmarks.measure import Bench, Drain
from course.evidence.benchmarks.statements import claim_params, claim_sql

OURS = ("course/", "psycopg/", "concurrent/futures/", "threading.py")


def explain_claim(bench: Bench, jobs: int) -> list[str]:
    """EXPLAIN ANALYZE of the claim, 1 and 100 at a time, on a full table (rolled back: nothing changes)."""
    lines = []
    with bench.fresh_jobs_table() as conn:
        bench.fill(conn, jobs)
        for limit in (1, 100):
            params = claim_params(claim_sql(), limit=limit, lease_s=60.0)
            with conn.transaction(force_rollback=True):
                plan = conn.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + claim_sql(), params).fetchall()
            lines.append(f"EXPLAIN ANALYZE claim, limit {limit}, {jobs:,} jobs waiting:")
            lines += ["  " + row[0] for row in plan]
    return lines


@dataclass
class CpuSplit:
    what: str
    drain: Drain

    def line(self) -> str:
        d = self.drain
        client, server = d.cpu_per_job_us()
        return (f"  {self.what:<46} {d.rate:8,.0f} jobs/s   CPU per job: client {client:5.1f} us, PostgreSQL "
                f"{server:5.1f} us, both {client + server:5.1f} us   (wall {d.seconds * 1e6 / d.jobs:4.0f} us a job)")


def cpu_split(bench: Bench, processes: int, jobs: int, concurrency: int) -> list[CpuSplit]:
    """Where the two cores went during a drain, per job: the draining processes' CPU and PostgreSQL's
    (every server process, the fill's COPY included, about 3 us a job), for the reference worker beside
    the bare loop sending the same statements, the lease path's loop, and pgqueuer when installed."""
    contenders = [
        (f"reference worker x{processes}, concurrency {concurrency}",
         lambda: bench.drain_workers(processes, concurrency, jobs)),
        (f"bare loop x{processes}, claim + ack_many SQL, 100 per claim",
         lambda: bench.drain_loop("bare", 100, processes, jobs)),
        (f"queue.ack_and_claim loop x{processes}, 100 per claim",
         lambda: bench.drain_loop("step", 100, processes, jobs)),
        (f"row-lock loop x{processes}, 100 per transaction", lambda: bench.drain_loop("lock", 100, processes, jobs)),
    ]
    if peers.available().get("pgqueuer"):
        contenders.append((f"pgqueuer asyncpg x{processes}, {peers.PGQUEUER_MANAGERS} managers x batch "
                           f"{peers.PGQUEUER_BATCH}", lambda: bench.drain_peer("pgqueuer", processes, jobs)))
    return [CpuSplit(what, run()) for what, run in contenders]


def worker_profile(bench: Bench, jobs: int, concurrency: int, processes: int = 1,
                   seconds_cap: float = 30.0) -> list[str]:
    """py-spy samples the worker processes while they drain `jobs` no-op jobs; the functions that cost most."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        return ["py-spy is not installed: .venv/bin/pip install py-spy (then run --profile again)"]
    with bench.fresh_jobs_table() as conn, tempfile.TemporaryDirectory() as folder:
        team = bench.start_workers(processes, concurrency)
        raws = [Path(folder) / f"samples{i}.txt" for i in range(processes)]
        recorders = []
        try:
            for worker, raw in zip(team, raws):
                recorders.append(subprocess.Popen(
                    [spy, "record", "--pid", str(worker.pid), "--rate", "400", "--format", "raw", "--output",
                     str(raw), "--gil", "--duration", str(int(seconds_cap))],
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
            time.sleep(2.0)  # py-spy attaches
            started = bench.fill(conn, jobs, notify=True)
            finished = bench.wait_until_empty(conn, "SELECT EXISTS (SELECT FROM jobs)", since=started)
            for recorder in recorders:
                recorder.send_signal(2)  # Ctrl-C: py-spy writes what it has and exits
            for recorder in recorders:
                recorder.wait(30)
        finally:
            bench.stop(team)
        if not any(raw.exists() for raw in raws):
            return ["py-spy recorded nothing (it needs ptrace: run as root or set kernel.yama.ptrace_scope=0)"]
        own, inclusive, total = collections.Counter(), collections.Counter(), 0
        for raw in raws:
            if not raw.exists():
                continue
            for line in raw.read_text().splitlines():
                stack, _, count = line.rpartition(" ")
                frames = stack.split(";")
                total += int(count)
                own[frames[-1]] += int(count)
                for frame in set(frames):
                    inclusive[frame] += int(count)
    seconds = finished - started
    lines = [f"py-spy, {processes} worker process(es) (concurrency {concurrency}), samples taken while a thread "
             f"held the GIL, draining {jobs:,} jobs at {jobs / seconds:,.0f} jobs/s, slowed by py-spy pausing the "
             f"process at each of its {total} samples (400 Hz): the shares count, not the rate",
             "  where the time is spent (own time, top 15):"]
    lines += [f"    {n / total:6.1%}  {frame}" for frame, n in own.most_common(15)]
    lines.append("  the worker's steps (time inside, top 15):")
    steps = [(frame, n) for frame, n in inclusive.most_common() if "course/" in frame]
    lines += [f"    {n / total:6.1%}  {frame}" for frame, n in steps[:15]]
    return lines
