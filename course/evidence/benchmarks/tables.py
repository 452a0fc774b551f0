"""The benchmark's tables, as lines of text: the rates, the CPU per job, the machine and its load, the
latency and enqueue rates. (bench.py measures and judges; this only lays the results out.)"""

from __future__ import annotations

import os
import platform
import statistics


def spread(values: list[float], unit: float = 1000.0, suffix: str = "k") -> str:
    """'12.3k (11.9-13.0)': the median, then the range over the rounds."""
    if not values:
        return "-"
    med, low, high = statistics.median(values), min(values), max(values)
    return f"{med / unit:.1f}{suffix} ({low / unit:.1f}-{high / unit:.1f})"


def table(plan, results) -> list[str]:
    """Jobs per second drained, per row and process count: the median and the range over the rounds."""
    counts = plan.process_counts
    label_width = max(len(row.label) for row in plan.rows)
    header = (f"{'jobs/s drained, median (min-max) over ' + str(plan.rounds) + ' rounds':<{label_width}}"
              f"  {'jobs':>6}" + "".join(f"  {str(n) + (' process' if n == 1 else ' processes'):>20}"
                                         for n in counts) + f"  {'dead tuples':>12}")
    lines = [header, "-" * len(header)]
    for row in plan.rows:
        if row.key not in results.rates:
            continue
        by_count = results.rates[row.key]
        cells = [spread(by_count[n]) if n in by_count else "-" for n in counts]
        dead = results.dead_tuples.get(row.key, {})
        largest = max(dead) if dead else None
        dead_cell = f"{statistics.median(dead[largest]):,.0f}" if largest else "-"
        lines.append(f"{row.label:<{label_width}}  {row.jobs(plan.jobs):>6}" + "".join(f"  {c:>20}" for c in cells)
                     + f"  {dead_cell:>12}")
    return lines


def cpu_table(plan, results) -> list[str]:
    """CPU microseconds per job, the draining processes' + the server's, median over the rounds."""
    if not results.cpu_us:
        return []
    counts = plan.process_counts
    label_width = max(len(row.label) for row in plan.rows)
    header = (f"{'CPU us per job: client + PostgreSQL, median over rounds':<{label_width}}"
              + "".join(f"  {str(n) + (' process' if n == 1 else ' processes'):>20}" for n in counts))
    lines = [header, "-" * len(header)]
    for row in plan.rows:
        by_count = results.cpu_us.get(row.key)
        if not by_count:
            continue
        cells = []
        for n in counts:
            pairs = by_count.get(n)
            if not pairs:
                cells.append("-")
                continue
            client = statistics.median(p[0] for p in pairs)
            server = statistics.median(p[1] for p in pairs)
            cells.append(f"{client:.1f} + {server:.1f}")
        lines.append(f"{row.label:<{label_width}}" + "".join(f"  {c:>20}" for c in cells))
    return lines


def machine() -> dict:
    """The machine the run was measured on, for the saved results."""
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "cpu": cpu, "system": platform.platform(), "python": platform.python_version()}


def about_lines(plan, about: dict) -> list[str]:
    cpus = about["machine"]["cpus"] or 1
    during = about.get("load_during") or []
    busy = max([about["load_before"][0], about["load_after"][0], *during]) > cpus / 2
    minutes = f", {about['duration_s'] / 60:.0f} minutes" if about.get("duration_s") else ""
    return [f"Benchmark {about['date']}: PostgreSQL {about['postgres']} (own server, default settings), "
            f"{cpus} CPUs ({about['machine']['cpu']}), seed {plan.seed}{minutes}",
            f"load average before/after: {about['load_before']} / {about['load_after']}"
            + (f"; 1-minute load during the run {min(during):.1f}-{max(during):.1f} "
               f"(median {statistics.median(during):.1f})" if during else "")
            + ("  (a busy machine: absolute numbers are noisy; compare ratios)" if busy else "")]


def latency_lines(results, enqueue_ways) -> list[str]:
    lines = ["enqueue -> handler start (one job at a time, worker idle):"]
    for way, label in (("notify", "LISTEN/NOTIFY"), ("polling", "polling only (1 s)")):
        if way in results.latency:
            p50, p99 = results.latency[way]["p50"], results.latency[way]["p99"]
            enqueue = results.latency[way].get("enqueue_p50")  # runs saved before it was measured lack it
            lines.append(f"  {label:<20} p50 {spread(p50, 0.001, ' ms')}   p99 {spread(p99, 0.001, ' ms')}"
                         + (f"   of which the producer's enqueue() call (INSERT, NOTIFY, commit), p50 "
                            f"{spread(enqueue, 0.001, ' ms')}" if enqueue else ""))
    lines.append("enqueue rate (jobs stored per second):")
    lines += [f"  {way:<20} {spread(results.enqueue[way])}" for way in enqueue_ways if way in results.enqueue]
    return lines
