"""How fast an exam run drained: throughput and latency, shown beside the reference's on the same seed and never
graded (the grade is verdict.py's).

    speed(run) -> Speed          throughput, p50 and p99 latency; beside(mine, reference): the two side by side
    per_worker(run)              one line per worker; done_times(run): when each job's effect committed
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from course.grading.exam.soak import Run, claiming_piece


@dataclass(frozen=True)
class Speed:
    """How fast a run drained. Every job is ready when the workers start, so a job's latency is the time
    from the first worker's start (its `ready`: not the time the run took to start the processes, which
    is the machine's, not the queue's) to its effect's commit (or its burial); the run's time for the
    throughput counts from there too. A measurement of one run on one machine: it is shown beside the
    reference's on the same seed, never graded."""

    jobs_done: int
    elapsed_s: float
    p50_s: float
    p99_s: float

    @property
    def throughput(self) -> float:
        return self.jobs_done / self.elapsed_s if self.elapsed_s > 0 else 0.0


def done_times(run: Run) -> list[float]:
    """When each job was done (its effect booked, or dead-lettered), from the workers' history: the last
    ack or burial of each job, since one whose connection was cut before its commit is done again later."""
    last: dict[int, float] = {}
    for e in run.events:
        if (e.kind == "acked" and e.facts.get("deleted")) or (e.kind == "buried" and e.facts.get("applied")):
            last[e.job] = e.t
    return sorted(t for job, t in last.items() if job in run.ledger or job in run.dead)


def _percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    return values[max(0, math.ceil(share * len(values)) - 1)]  # the nearest rank


def first_ready(run: Run) -> float:
    """When the first worker was up, in the run's seconds (0 when none was)."""
    return min((e.t for e in run.events if e.kind == "ready"), default=0.0)


def speed(run: Run) -> Speed:
    origin = first_ready(run)
    times = [t - origin for t in done_times(run)]
    return Speed(len(times), run.elapsed_s - origin, _percentile(times, 0.50), _percentile(times, 0.99))


def beside(mine: Run, reference: Run) -> str:
    """Your run's speed beside the reference worker's, same seed, same workload, same faults."""
    rows = [("", "jobs/s", "p50 (s)", "p99 (s)", "jobs done", "run (s)")]
    for name, run in (("your queue", mine), ("the reference", reference)):
        s = speed(run)
        rows.append((name, f"{s.throughput:.2f}", f"{s.p50_s:.1f}", f"{s.p99_s:.1f}", str(s.jobs_done),
                     f"{s.elapsed_s:.0f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths)))
                     for row in rows)


COUNTED = ("claimed", "booked", "retried", "buried", "refused", "killed", "cut")


def per_worker(run: Run) -> str:
    """One line per worker slot (its restarts included): what it claimed, booked (committed effects, from the
    ledger: an ack whose commit was cut is not counted), retried, buried, and the faults that hit it."""
    counts: dict[int, dict[str, int]] = {}
    for e in run.events:
        if e.worker < 0:
            continue
        c = counts.setdefault(e.worker, dict.fromkeys(COUNTED, 0))
        if e.kind == "claimed":
            c["claimed"] += 1
        elif e.kind == "ack_refused":
            c["refused"] += 1
        elif e.kind in ("retried", "buried") and e.facts.get("applied"):
            c[e.kind] += 1
        elif e.kind == "exited":
            c["killed"] += 1
        elif e.kind == "connection_lost":
            c["cut"] += 1
    for effects in run.ledger.values():
        for slot, _attempt in effects:
            counts.setdefault(slot, dict.fromkeys(COUNTED, 0))["booked"] += 1
    lines = []
    for slot in sorted(counts):
        c = counts[slot]
        how = "03.claim_batch" if claiming_piece(f"examworker-{run.seed}-{slot}") == "03.claim_batch" else "03.claim"
        lines.append(f"  worker {slot} ({how:<14}) claimed {c['claimed']:>3}, booked {c['booked']:>3}, retried "
                     f"{c['retried']:>2}, buried {c['buried']:>2}, acks refused {c['refused']:>2}; killed "
                     f"{c['killed']}, connections lost {c['cut']}")
    return "\n".join(lines)
