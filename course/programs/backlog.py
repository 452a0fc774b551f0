"""Lab 10: the queue grows for a while and drains afterwards — on real workers, against the arithmetic.

Receipts keep arriving at the dinner rush's pace while the email provider slows down for a while and
then recovers. A pool of `threads` job threads finishes `threads / S` jobs a second when each send
takes S seconds, so while arrivals outpace that, the jobs nobody has started pile up at the difference,
and once the provider recovers they drain at the difference the other way:

    grows at   λ - threads / S_slow     for as long as the provider is slow
    drains at  threads / S_fast - λ     once it is fast again, until nothing waits

    phases = [backlog.Phase(2, 0.3), backlog.Phase(5, 0.8), backlog.Phase(6, 0.3)]
    run = backlog.run(conn, provider, arrival_rate=11, phases=phases, log=log)
    backlog.predicted(11, threads=5, phases=phases)      # the same, as arithmetic

Arrivals come like clockwork here (one every 1/λ s), so that the measurement and the arithmetic differ
only by what the workers do. The workers are lab 10's (course/programs/rush.py): a `send_receipt` job
is one real HTTP call to the provider, whose answer takes the latency the current phase sets.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psycopg

from course.core import queue
from course.errors import InvalidArgument
from course.infra import eventlog

SAMPLE_EVERY_S = 0.1


@dataclass(frozen=True)
class Phase:
    seconds: float
    service_s: float  # the provider's answer time during this phase


def _checked(arrival_rate: float, threads: int, phases: Sequence[Phase]) -> None:
    if not arrival_rate > 0 or threads < 1 or not phases:
        raise InvalidArgument(f"give an arrival rate above 0, at least one thread and at least one phase; got "
                              f"{arrival_rate!r}, {threads!r}, {list(phases)!r}.")
    for phase in phases:
        if not phase.seconds > 0 or not phase.service_s > 0:
            raise InvalidArgument(f"each phase needs seconds and service_s above 0; got {phase!r}.")


def predicted(arrival_rate: float, threads: int, phases: Sequence[Phase], *, step: float = 0.01,
              until: float | None = None) -> list[tuple[float, float]]:
    """The arithmetic: jobs waiting for a thread over time, as a fluid. Arrivals last as long as the
    phases; after the last phase the provider keeps the last phase's speed, and nothing arrives."""
    _checked(arrival_rate, threads, phases)
    arrivals_end = sum(p.seconds for p in phases)
    until = arrivals_end + 10.0 if until is None else until
    waiting, t, points = 0.0, 0.0, [(0.0, 0.0)]
    while t < until:
        elapsed, capacity = 0.0, threads / phases[-1].service_s
        for phase in phases:
            if t < elapsed + phase.seconds:
                capacity = threads / phase.service_s
                break
            elapsed += phase.seconds
        inflow = arrival_rate if t < arrivals_end else 0.0
        waiting = max(0.0, waiting + (inflow - capacity) * step)
        t += step
        points.append((round(t, 6), waiting))
    return points


def peak_and_drain(arrival_rate: float, threads: int, phases: Sequence[Phase]) -> tuple[float, float]:
    """(the most jobs waiting, the moment nothing waits any more after that), from the arithmetic."""
    points = predicted(arrival_rate, threads, phases)
    peak_at, peak = max(points, key=lambda p: p[1])
    empty = next((t for t, w in points if t > peak_at and w == 0), points[-1][0])
    return peak, empty


@dataclass(frozen=True)
class Backlog:
    arrival_rate: float
    phases: list[Phase]
    samples: list[tuple[float, int]]  # (seconds since the first arrival, jobs not yet started)
    arrivals: int

    @property
    def peak(self) -> int:
        return max(waiting for _, waiting in self.samples)

    @property
    def drained_at(self) -> float:
        """The first sample after the peak at which nothing waited."""
        peak_at = max(self.samples, key=lambda s: s[1])[0]
        return next((t for t, waiting in self.samples if t > peak_at and waiting == 0), self.samples[-1][0])


def run(conn: psycopg.Connection, provider, *, arrival_rate: float, phases: Sequence[Phase], log: Path | str,
        drain_timeout_s: float = 60.0) -> Backlog:
    """Enqueue `send_receipt` jobs one every 1/arrival_rate seconds while the phases last, setting the
    provider's latency at each phase's start; count the jobs no worker has started every 0.1 s until
    every job is done. Workers running lab 10's handlers (rush.APP) must already be up."""
    _checked(arrival_rate, 1, phases)
    Path(log).unlink(missing_ok=True)
    conn.execute("DELETE FROM jobs")
    ends, total = [], 0.0
    for phase in phases:
        total += phase.seconds
        ends.append(total)
    count = int(total * arrival_rate)
    samples: list[tuple[float, int]] = []
    start = time.monotonic()
    provider.configure(latency_s=phases[0].service_s)
    phase, next_sample, order_id = 0, 0.0, 50_000
    for n in range(count):
        while True:
            now = time.monotonic() - start
            if phase < len(phases) - 1 and now >= ends[phase]:
                phase += 1
                provider.configure(latency_s=phases[phase].service_s)
            if now >= next_sample:
                samples.append((now, _waiting(conn)))
                next_sample += SAMPLE_EVERY_S
            due = n / arrival_rate
            if now >= due:
                break
            time.sleep(max(0.0, min(due, next_sample) - now))
        order_id += 1
        queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    while phase < len(phases) - 1:  # every phase change happens, even past the last arrival
        time.sleep(max(0.0, ends[phase] - (time.monotonic() - start)))
        phase += 1
        provider.configure(latency_s=phases[phase].service_s)
    deadline = time.monotonic() + drain_timeout_s
    while len(eventlog.read(log)) < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{count - len(eventlog.read(log))} job(s) had not finished {drain_timeout_s:g} s "
                               "after the last arrival (are the workers and the provider up?)")
        samples.append((time.monotonic() - start, _waiting(conn)))
        time.sleep(SAMPLE_EVERY_S)
    return Backlog(arrival_rate, list(phases), samples, count)


def _waiting(conn: psycopg.Connection) -> int:
    """Jobs no worker has claimed yet (a claim counts an attempt)."""
    return conn.execute("SELECT count(*) FROM jobs WHERE attempts = 0").fetchone()[0]


def plot(backlog: Backlog, threads: int, ax=None):
    """Measured waiting jobs as steps, the arithmetic as a dashed line, the slow phase shaded."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3.4))
    times, waiting = zip(*backlog.samples)
    ax.step(times, waiting, where="post", color="tab:blue", label="jobs waiting for a thread (measured)")
    arithmetic = predicted(backlog.arrival_rate, threads, backlog.phases, until=max(times))
    ax.plot([t for t, _ in arithmetic], [w for _, w in arithmetic], "--", color="black",
            label="the arithmetic: grows at λ − c/S, drains at c/S − λ")
    start = 0.0
    for phase in backlog.phases:
        if phase.service_s > min(p.service_s for p in backlog.phases):
            ax.axvspan(start, start + phase.seconds, color="tab:red", alpha=0.08,
                       label=f"provider slow: {phase.service_s:g} s a send")
        start += phase.seconds
    ax.set_xlabel("seconds since the first receipt")
    ax.set_ylabel("receipts waiting")
    ax.set_title(f"{backlog.arrival_rate:g} receipts a second, {threads} job threads: the queue grows, then drains")
    ax.legend(fontsize="small", loc="upper right")
    ax.set_ylim(bottom=0)
    return ax
