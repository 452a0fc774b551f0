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

from course.evidence.benchmarks import cpu
from course.evidence.benchmarks.measure import Bench
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


def cpu_seconds(pids: list[int]) -> float:
    return cpu.process_seconds(pids)


def postgres_cpu(bench: Bench) -> float:
    return cpu.server_seconds(bench.server.server.postmaster_pid())


@dataclass
class CpuSplit:
    what: str
    jobs: int
    seconds: float
    client_s: float  # CPU of the draining processes (our workers, or the bare loops)
    postgres_s: float  # CPU of the server's processes

    def line(self) -> str:
        per_job = lambda s: f"{s / self.jobs * 1e6:5.0f} us"
        return (f"  {self.what:<44} {self.jobs / self.seconds:8,.0f} jobs/s   CPU per job: client {per_job(self.client_s)}, "
                f"PostgreSQL {per_job(self.postgres_s)}, both {per_job(self.client_s + self.postgres_s)}   "
                f"(wall {self.seconds * 1e6 / self.jobs:4.0f} us a job)")


def cpu_split(bench: Bench, processes: int, jobs: int, concurrency: int) -> list[CpuSplit]:
    """Where the two cores went during a drain: the worker processes' CPU and PostgreSQL's, per job,
    beside the bare loop running the same claim + ack_many SQL at the same process count."""

    out = []
    with bench.fresh_jobs_table() as conn:
        team = bench.start_workers(processes, concurrency)
        try:
            pids = [child.pid for child in team]
            before = cpu_seconds(pids), postgres_cpu(bench)
            started = bench.fill(conn, jobs, notify=True)
            finished = bench.wait_until_empty(conn, "SELECT EXISTS (SELECT FROM jobs)", since=started)
            after = cpu_seconds(pids), postgres_cpu(bench)
        finally:
            bench.stop(team)
    out.append(CpuSplit(f"reference worker x{processes}, concurrency {concurrency}", jobs, finished - started,
                        after[0] - before[0], after[1] - before[1]))
    for batch in sorted({32, concurrency, 100}):
        bench.drain_loop("bare", batch, processes, 100)  # start the drainers (not measured)
        pids = [d.popen.pid for d in bench.drainers[:processes]]
        before = cpu_seconds(pids), postgres_cpu(bench)
        drain = bench.drain_loop("bare", batch, processes, jobs)
        after = cpu_seconds(pids), postgres_cpu(bench)
        # The fill (COPY, ANALYZE) falls inside both spans, the worker's and the loop's alike.
        out.append(CpuSplit(f"bare loop x{processes}, same SQL, {batch} per claim", jobs, drain.seconds,
                            after[0] - before[0], after[1] - before[1]))
    return out


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
                    [spy, "record", "--pid", str(worker.pid), "--rate", "250", "--format", "raw", "--output",
                     str(raw), "--gil", "--nonblocking", "--duration", str(int(seconds_cap))],
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
            time.sleep(1.0)  # py-spy attaches
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
             f"held the GIL, draining {jobs:,} jobs at {jobs / seconds:,.0f} jobs/s ({total} samples at 250 Hz: "
             f"the GIL was held {total / (250 * seconds * processes):.0%} of the drain per process)",
             "  where the time is spent (own time, top 15):"]
    lines += [f"    {n / total:6.1%}  {frame}" for frame, n in own.most_common(15)]
    lines.append("  the worker's steps (time inside, top 15):")
    steps = [(frame, n) for frame, n in inclusive.most_common() if "course/" in frame]
    lines += [f"    {n / total:6.1%}  {frame}" for frame, n in steps[:15]]
    return lines
