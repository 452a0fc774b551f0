"""Lab 10: Tiffin's dinner rush on real workers, and Little's law measured on it.

Receipts arrive at random moments, 11 a second on average (a seeded Poisson process); each one is a
`send_receipt` job whose work is a real HTTP call to the email provider, which answers after its set
latency (1.5 s in the material; 4 s when it is slow). While the rush runs we measure the three numbers
of Little's law independently:

    L   jobs in the system, by counting the jobs table every 0.1 s (a job leaves it when it is acked)
    λ   arrivals per second, from the enqueues
    W   time in the system, from each job's own timestamps (enqueued -> work finished)

    provider = EmailProvider.start(latency_s=1.5)
    pool = pools.start(rush.APP, schema="lab10", queues=["default"] * 2, concurrency=25,
                       env=rush.worker_env(provider.url, log))
    result = rush.run(conn, arrival_rate=11, duration_s=6, log=log, seed=1)
    rush.little(result)

The handler takes no database connection: 50 job threads would otherwise hold 50 connections. It
writes each job's start and finish to a log file instead (one short O_APPEND write per line).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import psycopg

from course.core import queue
from course.errors import InvalidArgument
from course.programs.email_provider import send_email
from course.core.worker import Registry

APP = "course.programs.rush:handlers"
PROVIDER_ENV = "EMAIL_PROVIDER_URL"  # the same variable Tiffin's own workers read
LOG_ENV = "RUSH_LOG"
SAMPLE_EVERY_S = 0.1


# -- the job ---------------------------------------------------------------------------------------------

handlers = Registry()


@handlers.handler("send_receipt", payload={"order_id": int})
def send_receipt(job) -> None:
    """Send the order's receipt through the provider; log when the work started and finished."""
    started = time.time()
    order_id = job.payload["order_id"]
    send_email(os.environ[PROVIDER_ENV], f"customer-{order_id}@tiffin.example",
               f"Your Tiffin receipt, order {order_id}", "Thank you for your order.",
               idempotency_key=f"receipt:{order_id}", timeout=30)
    _log(os.environ[LOG_ENV], {"job": job.id, "started": started, "finished": time.time()})


def _log(path: str, record: dict) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(record) + "\n").encode())
    finally:
        os.close(fd)


def worker_env(provider_url: str, log: Path | str) -> dict[str, str]:
    """What the worker processes need to know: where the provider is, where to write the log."""
    return {PROVIDER_ENV: provider_url, LOG_ENV: str(log)}


# -- a rush ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JobTimes:
    job: int
    enqueued: float  # seconds from the start of the rush
    started: float
    finished: float

    @property
    def in_system(self) -> float:
        return self.finished - self.enqueued

    @property
    def waited(self) -> float:
        return self.started - self.enqueued


@dataclass(frozen=True)
class Rush:
    arrival_rate: float  # what was asked for
    duration_s: float  # how long jobs kept arriving
    jobs: list[JobTimes]
    samples: list[tuple[float, int]]  # (seconds from the start, jobs in the jobs table)

    @property
    def end(self) -> float:
        return max(j.finished for j in self.jobs)


def arrival_times(rate: float, duration_s: float, seed: int) -> list[float]:
    """Poisson arrivals: exponential gaps with mean 1/rate, from 0 until `duration_s`."""
    if not rate > 0 or not duration_s > 0:
        raise InvalidArgument(f"rate and duration must be more than 0; got {rate!r} and {duration_s!r}.")
    rng = random.Random(seed)
    times, now = [], rng.expovariate(rate)
    while now < duration_s:
        times.append(now)
        now += rng.expovariate(rate)
    return times


def run(conn: psycopg.Connection, *, arrival_rate: float, duration_s: float, log: Path | str, seed: int,
        progress: Callable[[int], None] | None = None, drain_timeout_s: float = 60.0) -> Rush:
    """Enqueue send_receipt jobs at seeded random moments for `duration_s`, count the jobs table every
    0.1 s meanwhile, then wait until every job has finished. Workers must already be running."""
    log = Path(log)
    log.unlink(missing_ok=True)
    conn.execute("DELETE FROM jobs")
    schedule = arrival_times(arrival_rate, duration_s, seed)
    enqueued: dict[int, float] = {}
    samples: list[tuple[float, int]] = []
    start = time.time()
    next_sample = 0.0
    pending = list(schedule)
    order_id = 1000
    while pending or len(_finished(log)) < len(schedule):
        now = time.time() - start
        if now > duration_s + drain_timeout_s:
            raise TimeoutError(f"{len(schedule) - len(_finished(log))} receipt job(s) had not finished "
                               f"{drain_timeout_s:g} s after the rush (are the workers and the provider up?)")
        if pending and pending[0] <= now:
            pending.pop(0)
            order_id += 1
            # The time is taken before the enqueue: a worker woken by its commit may start the job
            # before enqueue() has even returned here.
            at = time.time() - start
            enqueued[queue.enqueue(conn, "send_receipt", {"order_id": order_id})] = at
            if progress:
                progress(1)
            continue
        if now >= next_sample:
            samples.append((now, conn.execute("SELECT count(*) FROM jobs").fetchone()[0]))
            next_sample += SAMPLE_EVERY_S
        wake = min(pending[0] if pending else float("inf"), next_sample)
        time.sleep(max(0.0, min(wake - (time.time() - start), SAMPLE_EVERY_S)))
    _wait_for_acks(conn)
    samples.append((time.time() - start, conn.execute("SELECT count(*) FROM jobs").fetchone()[0]))
    jobs = [JobTimes(record["job"], enqueued[record["job"]], record["started"] - start, record["finished"] - start)
            for record in _finished(log).values() if record["job"] in enqueued]
    return Rush(arrival_rate, duration_s, sorted(jobs, key=lambda j: j.enqueued), samples)


def _finished(log: Path) -> dict[int, dict]:
    if not log.exists():
        return {}
    records = {}
    for line in log.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        records[record["job"]] = record
    return records


def _wait_for_acks(conn: psycopg.Connection, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while conn.execute("SELECT count(*) FROM jobs").fetchone()[0] and time.monotonic() < deadline:
        time.sleep(0.02)


# -- Little's law on it -------------------------------------------------------------------------------


def average_in_system(intervals: Iterable[tuple[float, float]], start: float, end: float) -> float:
    """The time-average number of jobs in the system over [start, end], from each job's (arrived, left).

    Each job adds 1 for the part of its stay that falls inside the window: the area under the
    "jobs in the system" step function is the sum of those overlaps, and the average is area / width.
    """
    if not end > start:
        raise InvalidArgument(f"the window must have end > start; got [{start!r}, {end!r}].")
    area = sum(max(0.0, min(left, end) - max(arrived, start)) for arrived, left in intervals)
    return area / (end - start)


def counted_average(samples: Sequence[tuple[float, int]], start: float, end: float) -> float:
    """The time average of a sampled count over [start, end]: each sample holds until the next one."""
    if not end > start:
        raise InvalidArgument(f"the window must have end > start; got [{start!r}, {end!r}].")
    area = 0.0
    for (t, count), (t_next, _) in zip(samples, [*samples[1:], (float("inf"), 0)]):
        area += count * max(0.0, min(t_next, end) - max(t, start))
    return area / (end - start)


@dataclass(frozen=True)
class Little:
    """Little's three numbers over a whole rush, each measured its own way, and the rush's plateau.

    Over the whole run (it starts and ends with no job in the system) Little's law is an identity:
    the area under "jobs in the system" is the sum of every job's time in the system. So L, counted,
    must come out as λ × W, computed from the enqueues and the jobs' own timestamps.
    """

    seconds: float  # from the start of the rush until the last job finished
    arrivals: int
    time_in_system: float  # W: mean of (finished - enqueued)
    wait: float  # the part of W spent waiting for a free worker slot
    in_system: float  # L: the time average of the jobs-table counts over the whole run
    plateau: tuple[float, float]  # the steady part: from one W after the start until arrivals stop
    plateau_in_system: float  # L counted on the plateau: "jobs in progress at any moment"

    @property
    def arrival_rate(self) -> float:
        """λ over the whole run: arrivals / seconds (the quiet end of the run included)."""
        return self.arrivals / self.seconds

    @property
    def predicted(self) -> float:
        """λ × W: what Little's law says L is."""
        return self.arrival_rate * self.time_in_system


def little(rush: Rush) -> Little:
    """Measure λ, W and L on a rush; also L on its plateau."""
    w = statistics.fmean(j.in_system for j in rush.jobs)
    plateau = (w, rush.duration_s)
    if plateau[1] - plateau[0] < 1.0:
        raise InvalidArgument(f"the rush lasted {rush.duration_s:g} s, hardly longer than one job's "
                              f"{w:.1f} s in the system: there is no steady part to measure. Run it longer.")
    return Little(
        seconds=rush.end,
        arrivals=len(rush.jobs),
        time_in_system=w,
        wait=statistics.fmean(j.waited for j in rush.jobs),
        in_system=counted_average(rush.samples, 0.0, rush.end),
        plateau=plateau,
        plateau_in_system=counted_average(rush.samples, *plateau),
    )


def plot(rushes: Sequence[tuple[str, Rush]], *, title: str = "Receipt jobs in the system during the rush",
         ax=None):
    """Jobs in the system over time, as counted, with each rush's plateau average as a dashed line and
    λ × W (the arrival rate asked for, times the measured time in the system) in the legend."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 5.4), layout="constrained")
    for (label, rush), colour in zip(rushes, ("tab:blue", "tab:orange", "tab:green")):
        numbers = little(rush)
        times, depths = zip(*rush.samples)
        ax.step(times, depths, where="post", color=colour, alpha=0.8, label=f"{label}: jobs-table count")
        law = rush.arrival_rate * numbers.time_in_system
        ax.hlines(numbers.plateau_in_system, *numbers.plateau, colors=colour, linestyles="--",
                  label=f"{label}: plateau average {numbers.plateau_in_system:.1f} "
                        f"(λ × W = {rush.arrival_rate:g} × {numbers.time_in_system:.2f} = {law:.1f})")
    ax.set_xlabel("seconds since the rush began")
    ax.set_ylabel("receipt jobs in the system")
    ax.set_title(title)
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1)
    ax.set_ylim(bottom=0)
    return ax
