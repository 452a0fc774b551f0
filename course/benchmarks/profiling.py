"""Evidence for `python -m course bench --profile`: the claim's plan, and where a worker's time goes."""

from __future__ import annotations

import collections
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import queue, sql
from .measure import Bench

OURS = ("course/", "psycopg/", "concurrent/futures/", "threading.py")


def explain_claim(bench: Bench, jobs: int) -> list[str]:
    """EXPLAIN ANALYZE of the claim, 1 and 100 at a time, on a full table (rolled back: nothing changes)."""
    lines = []
    with bench.fresh_jobs_table() as conn:
        bench.fill(conn, jobs)
        for limit in (1, 100):
            params = {"queue": queue.DEFAULT_QUEUE, "limit": limit, "lease_s": 60.0, "worker": None}
            with conn.transaction(force_rollback=True):
                plan = conn.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql.query("queue", "claim"),
                                    params).fetchall()
            lines.append(f"EXPLAIN ANALYZE claim, limit {limit}, {jobs:,} jobs waiting:")
            lines += ["  " + row[0] for row in plan]
    return lines


def worker_profile(bench: Bench, jobs: int, concurrency: int, seconds_cap: float = 30.0) -> list[str]:
    """py-spy samples one worker process while it drains `jobs` no-op jobs; the functions that cost most."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        return ["py-spy is not installed: .venv/bin/pip install py-spy (then run --profile again)"]
    with bench.fresh_jobs_table() as conn, tempfile.TemporaryDirectory() as folder:
        [worker] = bench.start_workers(1, concurrency)
        raw = Path(folder) / "samples.txt"
        try:
            recorder = subprocess.Popen(
                [spy, "record", "--pid", str(worker.pid), "--rate", "250", "--format", "raw", "--output", str(raw),
                 "--gil", "--nonblocking", "--duration", str(int(seconds_cap))],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            started = bench.fill(conn, jobs, notify=True)
            finished = bench.wait_until_empty(conn, "SELECT EXISTS (SELECT FROM jobs)")
            recorder.send_signal(2)  # Ctrl-C: py-spy writes what it has and exits
            recorder.wait(30)
        finally:
            bench.stop([worker])
        if not raw.exists():
            return ["py-spy recorded nothing (it needs ptrace: run as root or set kernel.yama.ptrace_scope=0)"]
        own, inclusive, total = collections.Counter(), collections.Counter(), 0
        for line in raw.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            frames = stack.split(";")
            total += int(count)
            own[frames[-1]] += int(count)
            for frame in set(frames):
                inclusive[frame] += int(count)
    lines = [f"py-spy, one worker (concurrency {concurrency}) holding the GIL while it drained {jobs:,} jobs "
             f"at {jobs / (finished - started):,.0f} jobs/s ({total} samples)",
             "  where the time is spent (own time, top 12):"]
    lines += [f"    {n / total:6.1%}  {frame}" for frame, n in own.most_common(12)]
    lines.append("  the worker's steps (time inside, top 12):")
    steps = [(frame, n) for frame, n in inclusive.most_common() if "course/" in frame]
    lines += [f"    {n / total:6.1%}  {frame}" for frame, n in steps[:12]]
    return lines
