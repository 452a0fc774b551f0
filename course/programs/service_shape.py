"""Lab 10: why the 50-thread rush waited milliseconds where Erlang C's table says 0.19 s.

Two reasons, each measured here by simulation (seeded):

1. **The shape of the service time.** Erlang C is the formula of the M/M/c queue: service times drawn
   from an exponential distribution, some very short and some very long. The lab's email provider
   answers in a constant 4 s (M/D/c). Queues are built by variability, and a constant service time
   has none: in the long run an M/D/c queue waits about half what M/M/c does (the usual approximation,
   exact for one server: the Pollaczek–Khinchine formula).
2. **A short run from empty is not the long run.** The formula is for a queue that has been running
   for ever. The lab's rush starts with 50 idle threads and lasts 8 s: for its first 4 s no send has
   finished, the pool is still filling, and a burst seldom finds all 50 busy.

    service_shape.long_run_wait(11, 4.0, 50, deterministic=True)        # M/D/50, steady state
    service_shape.short_run_wait(11, 4.0, 50, seconds=8, runs=200)      # 8 s rushes, from empty
    service_shape.waits_for(rush.arrival_times(11, 8, 35), 4.0, 50)       # the lab's own rush, replayed

`simulate` plays a c-server first-come-first-served queue out job by job, with Poisson arrivals and
either constant or exponential service times: a heap of the moments each server comes free.
"""

from __future__ import annotations

import heapq
import itertools
import random
import statistics
from dataclasses import dataclass

from course.errors import InvalidArgument


def waits_for(arrivals, service_time: float, servers: int, *, deterministic: bool = True,
              rng: random.Random | None = None) -> list[float]:
    """Each job's wait for a free server, in arrival order, for these arrival times (sorted): first come
    first served, each job on the server that comes free first, for `service_time` (or an exponential
    draw with that mean, from `rng`)."""
    free_at = [0.0] * servers  # a heap: when each server is next free; free_at[0] is the soonest
    waits = []
    for arrival in arrivals:
        start = max(arrival, free_at[0])
        work = service_time if deterministic else rng.expovariate(1 / service_time)
        heapq.heapreplace(free_at, start + work)
        waits.append(start - arrival)
    return waits


def simulate(arrival_rate: float, service_time: float, servers: int, *, customers: int | None = None,
             seconds: float | None = None, deterministic: bool, seed: int = 0) -> list[float]:
    """Each job's wait for a free server, in arrival order: `customers` jobs, or the jobs arriving within
    `seconds` (a run that starts empty). Arrivals are Poisson; service is constant or exponential."""
    if not arrival_rate > 0 or not service_time > 0 or servers < 1:
        raise InvalidArgument(f"arrival_rate and service_time must be above 0 and servers at least 1; got "
                              f"{arrival_rate!r}, {service_time!r}, {servers!r}.")
    if (customers is None) == (seconds is None):
        raise InvalidArgument("give either customers (a long run) or seconds (a run from empty), not both.")
    rng = random.Random(seed)
    arrivals = itertools.accumulate(rng.expovariate(arrival_rate) for _ in itertools.count())
    if seconds is not None:
        arrivals = itertools.takewhile(lambda t: t < seconds, arrivals)
    else:
        arrivals = itertools.islice(arrivals, customers)
    return waits_for(arrivals, service_time, servers, deterministic=deterministic, rng=rng)


@dataclass(frozen=True)
class Wait:
    mean: float
    runs: int
    jobs: int


def long_run_wait(arrival_rate: float, service_time: float, servers: int, *, deterministic: bool,
                  customers: int = 200_000, seed: int = 1) -> Wait:
    """The mean wait in the long run: one run of `customers` jobs, its first tenth left out (warm-up)."""
    waits = simulate(arrival_rate, service_time, servers, customers=customers, deterministic=deterministic,
                     seed=seed)
    kept = waits[len(waits) // 10:]
    return Wait(statistics.fmean(kept), 1, len(kept))


def short_run_wait(arrival_rate: float, service_time: float, servers: int, *, seconds: float, runs: int = 200,
                   deterministic: bool = True, seed: int = 1) -> Wait:
    """The mean wait over `runs` runs that each start empty and take arrivals for `seconds`."""
    waits = [w for run in range(runs)
             for w in simulate(arrival_rate, service_time, servers, seconds=seconds, deterministic=deterministic,
                               seed=seed + run)]
    return Wait(statistics.fmean(waits) if waits else 0.0, runs, len(waits))
