"""`python -m course bench`: how fast the reference queue drains, beside the physical limit and its peers.

    python -m course bench               every row at 1, 2, 4 and 8 processes, 3 rounds: 23 minutes on
                                         the course's 2-core machine at load 6-18, 38 at load 14-40
    python -m course bench --quick       only the rows the targets divide, at 1 and 2 processes, half
                                         the jobs, 3 rounds: ~3 minutes under that load (a third of it
                                         starting pgqueuer's processes)
    python -m course bench --profile     where a reference worker's time goes at 1 and 2 processes: CPU per
                                         job beside the bare loop's, py-spy, and the claim's plan

It runs on a PostgreSQL of its own (same binaries, default settings, a temporary folder), so work on the
course database neither slows it nor is slowed by it. Each round runs every configuration once, in a
new random order (seeded, the seed is printed), so whatever else the machine does hits all of them
alike; the table shows the median over the rounds and the range (min-max). A wide range means a noisy
machine: trust the ratios between rows of one run more than any absolute number.

Every contender runs N processes at each process count N (our workers, pgqueuer, procrastinate, the
bare loops), each with its own documented throughput settings (see benchmarks/peers.py). The rows of
a group run back to back at one process count in every round, and each headline ratio divides two
rows of a group at the same process count, round by round: it is printed per process count, with the
median over them. A target "at every process count" is met only if its lowest ratio meets it.

Results go to .course/bench-<date>.json, and the table to .course/bench-latest.md (for the README).

Why one module: it is one measurement, run as one command: the contenders, the rounds that interleave
them and the ratios that compare them share the server, the job counts and the table of results.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from course.evidence.benchmarks import peers
from course.evidence.benchmarks.tables import about_lines, cpu_table, latency_lines, machine, table
from course.evidence.benchmarks.measure import Bench, Drain, home_for_results, percentile
from course.infra.private_server import PrivateServer

# Jobs in flight per worker process: for no-op jobs, the claim's batch size. 100, the bare loop's batch:
# the worker then claims as much per statement as the loop it is compared with. (Measured 2026-12-01,
# one process, no-op jobs, the worker acking and claiming in one transaction: 32 -> 5.2-6.1k jobs/s,
# 64 -> 7.4-9.0k, 100 -> 8.7-10.1k, 128 -> 7.0-8.2k.)
WORKER_CONCURRENCY = 100
BATCH = 100


@dataclass(frozen=True)
class Row:
    """One line of the table: a way of draining jobs, measured at every process count."""

    key: str
    label: str
    run: Callable[[Bench, int, int], Drain]  # (bench, processes, jobs) -> Drain
    # Of --jobs: each drain should last a second or more (a shorter one measures noise), and a round
    # minutes, not hours. So one-job-per-claim rows drain fewer jobs, batched rows more.
    share: float = 1.0
    needs: str | None = None  # the peer this row needs installed
    # Rows of one group are measured back to back at each process count, in every round (in a new
    # order each time): a ratio between two of them compares drains seconds apart, not minutes.
    group: str | None = None

    def jobs(self, base: int) -> int:
        return max(100, int(base * self.share))


def loop(name: str, batch: int):
    return lambda bench, processes, jobs: bench.drain_loop(name, batch, processes, jobs)


def workers(concurrency: int):
    return lambda bench, processes, jobs: bench.drain_workers(processes, concurrency, jobs)


def peer(name: str, driver: str = "asyncpg"):
    return lambda bench, processes, jobs: bench.drain_peer(name, processes, jobs, driver)


# Every contender runs as N processes at each process count, with the settings its own documentation
# gives for throughput (see course/evidence/benchmarks/peers.py for the sources and what we measured to choose):
# our worker at concurrency 100 per process (and 32 beside it), pgqueuer with 5 queue managers x batch 50 per process,
# procrastinate at concurrency 30 per process.
PGQUEUER_SETTINGS = f"{peers.PGQUEUER_MANAGERS} managers x batch {peers.PGQUEUER_BATCH} per process"
# The jobs pgqueuer holds in flight per process with those settings; our worker at the same number is
# the row that compares like with like (the worker at 100 matches the bare loops' batch instead).
PEER_IN_FLIGHT = peers.PGQUEUER_MANAGERS * peers.PGQUEUER_BATCH
ROWS = [
    Row("pgbench", "pgbench: INSERT + DELETE, one job per transaction (the limit, one at a time)",
        lambda bench, clients, jobs: bench.pgbench(clients, jobs), share=0.1, group="single"),
    Row("lock-1", "bare loop, row lock held while working, 1 job per transaction", loop("lock", 1), share=0.1,
        group="single"),
    Row("lock-100", f"bare loop, row lock held while working, {BATCH} per transaction", loop("lock", BATCH),
        share=4, group="batched"),
    Row("bare-1", "bare loop, the reference's claim + ack SQL, 1 per claim", loop("bare", 1), share=0.1,
        group="single"),
    Row("bare-100", f"bare loop, the reference's claim + ack_many SQL, {BATCH} per claim", loop("bare", BATCH),
        share=4, group="batched"),
    Row("ref-1", "reference queue.claim + ack, 1 per claim", loop("reference", 1), share=0.1, group="single"),
    Row("ref-100", f"reference queue.claim + ack_many, {BATCH} per claim", loop("reference", BATCH), share=4,
        group="batched"),
    Row("step-100", f"reference queue.ack_and_claim, {BATCH} per claim: the ack and the next claim in one statement",
        loop("step", BATCH), share=4, group="batched"),
    Row("for-update-1", "reference claim with plain FOR UPDATE (no SKIP LOCKED), 1 per claim",
        loop("for-update", 1), share=0.1),
    Row("worker-4", "reference worker, no-op handler, concurrency 4 (the default)", workers(4)),
    Row("worker-32", "reference worker, no-op handler, concurrency 32 per process", workers(32), share=2,
        group="batched"),
    Row("worker", f"reference worker, no-op handler, concurrency {WORKER_CONCURRENCY} per process",
        workers(WORKER_CONCURRENCY), share=2, group="batched"),
    Row(f"worker-{PEER_IN_FLIGHT}",
        f"reference worker, concurrency {PEER_IN_FLIGHT} per process: pgqueuer's jobs in flight",
        workers(PEER_IN_FLIGHT), share=2, group="batched"),
    Row("pgqueuer", f"pgqueuer {peers.version_of('pgqueuer')} (asyncpg), {PGQUEUER_SETTINGS}",
        peer("pgqueuer", "asyncpg"), share=2, needs="pgqueuer", group="batched"),
    Row("pgqueuer-psycopg", "pgqueuer (psycopg), the same settings", peer("pgqueuer", "psycopg"),
        share=1, needs="pgqueuer", group="batched"),
    Row("procrastinate", f"procrastinate {peers.version_of('procrastinate')}, concurrency "
        f"{peers.PROCRASTINATE_CONCURRENCY} per process", peer("procrastinate"), share=0.05,
        needs="procrastinate", group="batched"),
]
LABELS = {row.key: row.label for row in ROWS}

LATENCY_SAMPLES = {"notify": 200, "polling": 40}
ENQUEUE_WAYS = {"one by one": 0.1, "batched": 1.0, "COPY": 1.0}  # share of --jobs each stores


@dataclass
class Results:
    """Everything measured, as plain data (what goes into the JSON file)."""

    rates: dict[str, dict[int, list[float]]] = field(default_factory=dict)  # row -> processes -> jobs/s
    dead_tuples: dict[str, dict[int, list[int]]] = field(default_factory=dict)
    # row -> processes -> [client, server] CPU microseconds per job, one pair a round: what load
    # changes least (a process waiting for a core spends nothing), so the figure to compare runs by
    cpu_us: dict[str, dict[int, list[list[float]]]] = field(default_factory=dict)
    # notify|polling -> p50|p99 (enqueue to handler start), enqueue_p50 (the enqueue() call alone) -> s
    latency: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    enqueue: dict[str, list[float]] = field(default_factory=dict)  # way -> jobs/s
    load: list[float] = field(default_factory=list)  # the 1-minute load average before each measurement
    seconds: dict[str, float] = field(default_factory=dict)  # row (or latency/enqueue) -> wall time spent

    def add_drain(self, key: str, processes: int, drain: Drain) -> None:
        self.rates.setdefault(key, {}).setdefault(processes, []).append(drain.rate)
        if drain.dead_tuples is not None:
            self.dead_tuples.setdefault(key, {}).setdefault(processes, []).append(drain.dead_tuples)
        if drain.cpu is not None:
            client, server = drain.cpu_per_job_us()
            self.cpu_us.setdefault(key, {}).setdefault(processes, []).append([round(client, 2), round(server, 2)])

    @classmethod
    def from_json(cls, data: dict) -> "Results":
        """Back from a saved run (JSON turned the process counts into strings)."""
        def by_count(values: dict) -> dict:
            return {int(n): samples for n, samples in values.items()}

        rows = {key: row for key, row in data["rows"].items() if row["jobs_per_second"]}
        return cls(rates={key: by_count(row["jobs_per_second"]) for key, row in rows.items()},
                   dead_tuples={key: by_count(row["dead_tuples"]) for key, row in rows.items()},
                   cpu_us={key: by_count(row.get("cpu_us_per_job") or {}) for key, row in rows.items()},
                   latency=data["latency_s"], enqueue=data["enqueue_per_second"],
                   load=data.get("load_during") or [], seconds=data.get("seconds_spent") or {})

    def paired_ratios(self, numerator: str, denominator: str) -> dict[int, float]:
        """For two rows of one group: at each process count, the ratio within each round (the two
        drains ran back to back), then its median over the rounds."""
        a, b = self.rates.get(numerator, {}), self.rates.get(denominator, {})
        return {n: statistics.median(x / y for x, y in zip(a[n], b[n])) for n in sorted(a) if n in b}

    def paired_ratio(self, numerator: str, denominator: str) -> float | None:
        """The median over the process counts of paired_ratios()."""
        per_count = self.paired_ratios(numerator, denominator)
        return statistics.median(per_count.values()) if per_count else None

    def median(self, key: str, processes: int | None = None) -> float | None:
        """The row's median rate at `processes`, or at its best process count."""
        by_count = self.rates.get(key)
        if not by_count:
            return None
        if processes is None:
            return max(statistics.median(values) for values in by_count.values())
        values = by_count.get(processes)
        return statistics.median(values) if values else None


# -- running --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    rounds: int
    jobs: int
    process_counts: tuple[int, ...]
    seed: int
    rows: list[Row]
    latency_ways: tuple[str, ...] = tuple(LATENCY_SAMPLES)

    def measurements(self) -> list[list[tuple[str, object]]]:
        """One round's work, as blocks: a block's measurements run back to back (each round shuffles
        the blocks, and the order inside each). A block is one group's rows at one process count, so
        a ratio between two rows of a group compares drains seconds apart, at the same process count,
        from nothing else the machine did in between."""
        blocks: list[list[tuple[str, object]]] = []
        seen: set[str] = set()
        for row in self.rows:
            if row.key in seen:
                continue
            members = [r for r in self.rows if r.group is not None and r.group == row.group] or [row]
            seen.update(r.key for r in members)
            for n in self.process_counts:
                blocks.append([("drain", (r, n)) for r in members])
        blocks += [[("latency", way)] for way in self.latency_ways]
        blocks += [[("enqueue", way)] for way in ENQUEUE_WAYS]
        return blocks


def run(plan: Plan, bench: Bench, progress) -> Results:
    results = Results()
    rng = random.Random(plan.seed)
    for round_number in range(plan.rounds):
        blocks = plan.measurements()
        rng.shuffle(blocks)  # alternate: no configuration always runs first, or right after a slow one
        for block in blocks:
            rng.shuffle(block)
        for kind, what in (measurement for block in blocks for measurement in block):
            results.load.append(round(os.getloadavg()[0], 2))
            began = time.monotonic()
            if kind == "drain":
                row, processes = what
                progress.set_description(f"round {round_number + 1}: {row.key} x{processes}")
                results.add_drain(row.key, processes, row.run(bench, processes, row.jobs(plan.jobs)))
                spent_on = row.key
            elif kind == "latency":
                progress.set_description(f"round {round_number + 1}: latency, {what}")
                seconds, enqueue_s = bench.latencies(LATENCY_SAMPLES[what], listen=what == "notify", rng=rng)
                found = {"p50": percentile(seconds, 50), "p99": percentile(seconds, 99),
                         "enqueue_p50": percentile(enqueue_s, 50)}
                for q, value in found.items():
                    results.latency.setdefault(what, {}).setdefault(q, []).append(value)
                spent_on = f"latency {what}"
            else:
                progress.set_description(f"round {round_number + 1}: enqueue, {what}")
                jobs = max(100, int(plan.jobs * ENQUEUE_WAYS[what]))
                results.enqueue.setdefault(what, []).append(bench.enqueue_rate(what, jobs))
                spent_on = f"enqueue {what}"
            results.seconds[spent_on] = round(results.seconds.get(spent_on, 0.0) + time.monotonic() - began, 1)
            progress.update()
    return results


# -- reporting ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    what: str
    value: float | None  # for an "at every process count" target, the lowest of them
    target: str
    met: bool | None  # None: could not be measured
    why: str = ""
    per_count: dict[int, float] = field(default_factory=dict)


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


# Ratios between rows of one group, at the same process count (paired: see Results.paired_ratios).
# (label: exactly what is divided by what, numerator row, denominator row)
RATIOS = [
    (f"reference worker (concurrency {WORKER_CONCURRENCY}) / pgqueuer asyncpg ({PGQUEUER_SETTINGS})",
     "worker", "pgqueuer"),
    (f"reference worker at concurrency {PEER_IN_FLIGHT}, pgqueuer's jobs in flight / pgqueuer asyncpg",
     f"worker-{PEER_IN_FLIGHT}", "pgqueuer"),
    ("reference worker / pgqueuer psycopg (the same settings)", "worker", "pgqueuer-psycopg"),
    ("reference worker at concurrency 32 / pgqueuer asyncpg", "worker-32", "pgqueuer"),
    (f"reference worker / procrastinate (concurrency {peers.PROCRASTINATE_CONCURRENCY} per process)",
     "worker", "procrastinate"),
    (f"reference worker / bare loop, the same claim + ack_many SQL, {BATCH} per claim", "worker", "bare-100"),
    (f"queue.claim + ack_many / bare loop, the same SQL, {BATCH} per claim", "ref-100", "bare-100"),
    ("queue.claim + ack / bare loop, the same SQL, 1 per claim", "ref-1", "bare-1"),
    (f"queue.claim + ack_many / bare loop holding the row lock, no lease, {BATCH} per transaction",
     "ref-100", "lock-100"),
    (f"queue.ack_and_claim / bare loop holding the row lock, no lease, {BATCH} per transaction",
     "step-100", "lock-100"),
    ("queue.claim + ack / bare loop holding the row lock, no lease, 1 per transaction", "ref-1", "lock-1"),
    ("bare loop, the reference's SQL, 1 per claim / pgbench INSERT + DELETE", "bare-1", "pgbench"),
]

# (what, numerator row, denominator row, at least, at every process count?, why it can fall short)
TARGETS = [
    ("reference worker / pgqueuer asyncpg, same process count, at every process count", "worker", "pgqueuer",
     2.0, True, "see --profile: where the worker's time goes, beside the bare loop's"),
    (f"reference worker / bare loop, same SQL, {BATCH} per claim, same process count, at every process count",
     "worker", "bare-100", 0.75, True,
     "per job the worker builds a Job, hands it to a handler thread and books its outcome: more CPU "
     "than the bare loop's, which decides the ratio once the two cores are saturated; see --profile"),
    (f"queue.claim + ack_many / the same SQL sent bare ({BATCH} per claim), median over process counts",
     "ref-100", "bare-100", 0.80, False,
     "~1.5 us more Python per job than bare (a Job per row, the batch put in order of urgency, the acked "
     "ids read back), on two cores PostgreSQL also needs; one process on a quiet machine measures 0.9-1.0"),
    ("queue.claim + ack / the same SQL sent bare (1 per claim), median over process counts", "ref-1", "bare-1",
     0.90, False, "argument checks per call; two commits per job dominate either way"),
    (f"the lease path (queue.ack_and_claim) / the loop holding the row lock, {BATCH} per batch, median over "
     f"process counts", "step-100", "lock-100", 0.50, False,
     "the lease writes each job twice (the claim: a new row version and an entry in both indexes, since it "
     "moves run_at; then the delete), the lock-held loop once: about 4x the WAL a job (lab 11, 'write "
     "amplification')"),
]


def verdicts(results: Results, missing: dict[str, str]) -> list[Verdict]:
    out = []
    for what, numerator, denominator, at_least, every, why in TARGETS:
        per_count = results.paired_ratios(numerator, denominator)
        if not per_count:
            value = None
        else:
            value = min(per_count.values()) if every else statistics.median(per_count.values())
        out.append(Verdict(what, value, f">= {at_least:.2f}", None if value is None else value >= at_least,
                           missing.get(denominator, why), per_count))
    notify = results.latency.get("notify", {})
    p50 = statistics.median(notify["p50"]) if notify else None
    enqueue = statistics.median(notify["enqueue_p50"]) if notify.get("enqueue_p50") else None
    out.append(Verdict("enqueue -> start p50 with LISTEN/NOTIFY, ms", p50 and p50 * 1000, "<= 5",
                       None if p50 is None else p50 <= 0.005,
                       (f"{enqueue * 1000:.1f} ms of it is the producer's own enqueue() (its commit waits for a "
                        f"WAL flush); " if enqueue else "")
                       + "the rest is the NOTIFY, the claim's commit (a second flush) and three wake-ups (the "
                       "listening thread, the main loop, a handler thread), each waiting for a CPU on a "
                       "loaded machine"))
    return out


def headline(results: Results, counts: tuple[int, ...]) -> list[str]:
    """Each ratio at each process count (both sides at the same count, measured back to back in each
    round, median over the rounds), then the median over the process counts."""
    width = max(len(label) for label, _, _ in RATIOS)
    lines = ["Headline: A / B, both at the same process count and measured back to back in each round; "
             "each cell the median over the rounds,",
             "the last column the median over the process counts (processes: 1 = one worker process, "
             "and so on; every contender runs N processes).",
             f"  {'A / B':<{width}}" + "".join(f"  {str(n) + ' proc':>7}" for n in counts) + f"  {'median':>7}"]
    for label, a, b in RATIOS:
        per_count = results.paired_ratios(a, b)
        if not per_count:
            continue
        cells = [f"{per_count[n]:.2f}x" if n in per_count else "-" for n in counts]
        lines.append(f"  {label:<{width}}" + "".join(f"  {c:>7}" for c in cells)
                     + f"  {statistics.median(per_count.values()):6.2f}x")
    return lines


def target_lines(plan: Plan, found: list[Verdict]) -> list[str]:
    lines = ["Targets:"
             + ("  (a quick run: few jobs per drain, so indicative only)" if plan.jobs < 10_000 else "")]
    for v in found:
        state = {True: "met", False: "MISSED", None: "not measured"}[v.met]
        shown = "n/a" if v.value is None else f"{v.value:.2f}"
        counts = ", ".join(f"{n}: {x:.2f}" for n, x in sorted(v.per_count.items()))
        lines.append(f"  [{state:>12}] {v.what}: {shown} (target {v.target})"
                     + (f" [by process count {counts}]" if len(v.per_count) > 1 else "")
                     + (f"; {v.why}" if v.met is not True and v.why else ""))
    return lines


def report(plan: Plan, results: Results, about: dict, missing: dict[str, str]) -> tuple[list[str], dict]:
    """The text to print, and the data to keep."""
    found = verdicts(results, missing)
    lines = about_lines(plan, about) + [""] + headline(results, plan.process_counts) + [""] + table(plan, results)
    lines += [f"  {name}: not measured, not installed. {hint}" for name, hint in missing.items()]
    lines += ["", "dead tuples: left in the jobs table after the drain, at the largest process count "
              "(autovacuum has not run yet)", ""]
    if results.cpu_us:
        lines += cpu_table(plan, results) + [
            "client: the draining processes (a peer's from its fill's commit); PostgreSQL: every server "
            "process, the fill included; from /proc, in 10 ms ticks", ""]
    lines += latency_lines(results, ENQUEUE_WAYS) + [""] + target_lines(plan, found)
    if results.seconds:
        spent = sorted(results.seconds.items(), key=lambda item: -item[1])
        lines += ["", f"time spent, starting processes included ({sum(results.seconds.values()) / 60:.1f} min in all): "
                  + ", ".join(f"{what} {seconds:.0f} s" for what, seconds in spent)]
    data = {
        **about, "seed": plan.seed, "rounds": plan.rounds, "jobs": plan.jobs,
        "process_counts": list(plan.process_counts),
        "rows": {row.key: {"label": row.label, "jobs": row.jobs(plan.jobs),
                           "jobs_per_second": results.rates.get(row.key, {}),
                           "dead_tuples": results.dead_tuples.get(row.key, {}),
                           "cpu_us_per_job": results.cpu_us.get(row.key, {})} for row in plan.rows},
        "latency_s": results.latency, "enqueue_per_second": results.enqueue, "seconds_spent": results.seconds,
        "targets": [vars(v) for v in found], "missing": missing,
    }
    return lines, data


# -- profile ----------------------------------------------------------------------------------------


def profile(bench: Bench, jobs: int, process_counts: tuple[int, ...]) -> list[str]:
    """Evidence for a missed target: the claim's plan, where the CPU goes per job (worker beside the
    bare loop), and where one worker's Python time goes."""
    from course.evidence.benchmarks import profiling

    lines = profiling.explain_claim(bench, jobs) + [""]
    for n in process_counts:
        lines.append(f"CPU per job at {n} process(es) (from /proc: the draining processes, and every "
                     f"PostgreSQL process):")
        lines += [split.line() for split in profiling.cpu_split(bench, n, jobs, WORKER_CONCURRENCY)]
        # py-spy needs a few seconds of draining to sample (it pauses the worker at each sample): 5x the jobs
        lines += [""] + profiling.worker_profile(bench, 5 * jobs, WORKER_CONCURRENCY, processes=n) + [""]
    return lines


# -- command line -----------------------------------------------------------------------------------


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m course bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the rows the targets need, at 1 and 2 processes, half the jobs (about 3 minutes)")
    parser.add_argument("--rounds", type=int, help="rounds (default 3)")
    parser.add_argument("--jobs", type=int, help="jobs per drain, before each row's share (default 10,000; --quick 5,000)")
    parser.add_argument("--processes", help="process counts, e.g. 1,2,4,8")
    parser.add_argument("--rows", help="only these rows (keys: " + ", ".join(r.key for r in ROWS) + ")")
    parser.add_argument("--seed", type=int, help="order of the configurations (default: random, printed)")
    parser.add_argument("--profile", action="store_true", help="EXPLAIN ANALYZE the claim; py-spy a worker")
    parser.add_argument("--report", metavar="JSON", help="print a saved run again (and make it the latest)")
    return parser.parse_args(argv)


# What --quick measures (unless --rows names others): the rows the targets divide, nothing else. The
# other rows (pgbench, the lock loops, pgqueuer on psycopg, procrastinate, the smaller workers) fill
# in the full table and answer no target; the peers among them start processes of their own at every
# drain, and the polling latency waits half a second a sample.
QUICK = {key for _, numerator, denominator, *_ in TARGETS for key in (numerator, denominator)}


def make_plan(args: argparse.Namespace) -> tuple[Plan, dict[str, str]]:
    installed = peers.available()
    missing = {name: peers.install_hint([name]) for name, version in installed.items() if version is None}
    wanted = set(args.rows.split(",")) if args.rows else None
    rows = [row for row in ROWS if (wanted is None or row.key in wanted) and row.needs not in missing
            and (wanted is not None or not args.quick or row.key in QUICK)]
    counts = (tuple(int(n) for n in args.processes.split(",")) if args.processes
              else (1, 2) if args.quick else (1, 2, 4, 8))
    plan = Plan(rounds=args.rounds or 3, jobs=args.jobs or (5_000 if args.quick else 10_000),
                process_counts=counts, seed=args.seed if args.seed is not None else random.randrange(10**6),
                rows=rows, latency_ways=("notify",) if args.quick else tuple(LATENCY_SAMPLES))
    return plan, missing


def main(argv: list[str]) -> int:
    args = parse(argv)
    if args.report:
        return reprint(args.report)
    plan, missing = make_plan(args)
    versions = {name: version for name, version in peers.available().items() if version}
    print(f"seed {plan.seed}; {plan.rounds} rounds; {plan.jobs:,} jobs per drain; processes "
          f"{','.join(map(str, plan.process_counts))}; peers: "
          + (", ".join(f"{n} {v}" for n, v in versions.items()) or "none installed"))
    for name, hint in missing.items():
        print(f"{name} is not installed: its rows are skipped. To measure it: {hint}")
    load_before = tuple(round(x, 2) for x in os.getloadavg())
    began = time.monotonic()
    with PrivateServer(prefix="bench-") as server:
        bench = Bench(server)
        try:
            if args.profile:
                print("\n".join(profile(bench, plan.jobs, plan.process_counts if args.processes else (1, 2))))
                return 0
            postgres = bench.admin.execute("SHOW server_version").fetchone()[0]
            results = measure_with_progress(plan, bench)
        finally:
            bench.close()
    about = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "postgres": postgres,
             "machine": machine(), "peers": versions, "load_before": load_before,
             "load_after": tuple(round(x, 2) for x in os.getloadavg()),
             "load_during": results.load, "duration_s": round(time.monotonic() - began)}
    lines, data = report(plan, results, about, missing)
    print("\n" + "\n".join(lines))
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    save(lines, data, home_for_results() / f"bench-{stamp}.json")
    return 0


def measure_with_progress(plan: Plan, bench: Bench) -> Results:
    from tqdm import tqdm

    total = sum(len(block) for block in plan.measurements()) * plan.rounds
    with tqdm(total=total, unit="run", file=sys.stderr) as progress:
        return run(plan, bench, progress)


def save(lines: list[str], data: dict, path) -> None:
    path.write_text(json.dumps(data, indent=1) + "\n")
    latest = path.parent / "bench-latest.md"
    latest.write_text("```\n" + "\n".join(lines) + "\n```\n")
    print(f"\nwritten: {path} and {latest}")


def reprint(path: str) -> int:
    data = json.loads(open(path).read())
    rows = [row for row in ROWS if row.key in data["rows"]]
    plan = Plan(rounds=data["rounds"], jobs=data["jobs"], process_counts=tuple(data["process_counts"]),
                seed=data["seed"], rows=rows)
    about = {key: data.get(key) for key in ("date", "postgres", "machine", "peers", "load_before", "load_after",
                                            "load_during", "duration_s")}
    lines, _ = report(plan, Results.from_json(data), about, data.get("missing", {}))
    print("\n".join(lines))
    save(lines, data, Path(path))
    return 0
