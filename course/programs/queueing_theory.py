"""Queueing maths for job queues: Little's law, Erlang C, and a simulation to check them against.

Three questions every job queue raises, and what answers each one here:

    How many jobs are in progress at once?      Little's law:  L = λ × W
    How long does a job wait for a free worker?  Erlang C, the formula for the M/M/c queue
    Why believe the formula?                     simulate_mmc plays the same queue out with random numbers

Units throughout: seconds, and jobs per second.

    λ  arrival_rate   jobs arriving per second (on average)
    S  service_time   seconds one job keeps a worker busy (on average); μ = 1/S jobs/s per worker
    c  servers        workers taking jobs from the queue
    a  = λ × S        offered load: how many workers are busy on average
    ρ  = a / c        utilisation: the fraction of the time each worker is busy

M/M/c means: arrivals at random moments (a Poisson process: exponential gaps between jobs), service
times exponentially distributed, c workers, one first-come-first-served queue. Real jobs are rarely that
tidy, but the model gets the big lesson right: the wait stays small while ρ is well below 1 and then
explodes as ρ approaches 1. At ρ >= 1 jobs arrive faster than the workers finish them and the queue
grows without end.

The material's numbers, reproduced:

>>> in_progress(11, 1.5)           # Tiffin's dinner rush: 11 receipts/s, 1.5 s each
16.5
>>> in_progress(11, 4)             # the provider slows down to 4 s per email
44.0
>>> workers_needed(11, 4)          # 44 plus 10 % headroom, rounded up: "about 50 workers"
49
>>> wait_behind_backlog(48_000, 40) / 60   # a confirmation behind StayHub's newsletter, in minutes
20.0

Why one module: Little's law, Erlang C and the simulation answer one question (how long jobs wait) three
ways, and the simulation exists to check the formulas beside it.
"""

from __future__ import annotations

import heapq
import itertools
import math
import numbers
import random
import statistics
from dataclasses import dataclass

from course.errors import InvalidArgument
from course.core import arguments

DEFAULT_HEADROOM = 0.10  # 10 % more workers than Little's law says are busy on average
DEFAULT_PERCENTILES = (0.50, 0.95, 0.99)
BATCHES = 20  # for the simulation's standard error (batch means)


# -- checking what callers give us -------------------------------------------------------------------


def _fraction(name: str, value: object) -> float:
    is_number = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not is_number or not 0 < value < 1:
        raise InvalidArgument(f"{name} must be a fraction between 0 and 1 (exclusive); got {value!r}. "
                              "Pass 0.95 for the 95th percentile.")
    return float(value)


def _rate(value: object) -> float:
    return arguments.positive("arrival_rate", value, "how many jobs arrive per second, e.g. 11")


def _service(value: object) -> float:
    return arguments.positive("service_time", value, "how many seconds one job keeps a worker busy, e.g. 1.5")


def _servers(value: object) -> int:
    return arguments.whole("servers", value, "how many workers take jobs from the queue, e.g. 2")


# -- Little's law ----------------------------------------------------------------------------------


def in_progress(arrival_rate: float, time_in_system: float) -> float:
    """Little's law: L = λ × W.

    On average, the number of jobs in a system (L) equals the rate they arrive (λ, jobs/s) times how
    long each one stays (W, seconds). It holds for any system that is not growing without end, whatever
    the distributions: count "in the system" as "being worked on" and W is the service time; count it
    as "waiting in the queue" and W is the wait.

    >>> in_progress(11, 1.5)
    16.5
    """
    time_in_system = arguments.positive("time_in_system", time_in_system,
                               "how many seconds a job stays, e.g. 1.5", allow_zero=True)
    return _rate(arrival_rate) * time_in_system


def workers_needed(arrival_rate: float, service_time: float, headroom: float = DEFAULT_HEADROOM) -> int:
    """Concurrent workers for a steady load: ⌈λ × S × (1 + headroom)⌉.

    λ × S workers are busy on average (Little's law); with exactly that many, every worker is busy all
    the time and the queue grows with every burst. `headroom` is the extra fraction on top. It is a
    rule of thumb; `size_pool` answers the same question from a target wait.

    >>> workers_needed(11, 4)                 # 44 busy on average, plus 10 %
    49
    >>> workers_needed(11, 4, headroom=0.15)
    51
    """
    headroom = arguments.positive("headroom", headroom, "a fraction of spare workers, e.g. 0.1 for 10 %",
                         allow_zero=True)
    busy = _rate(arrival_rate) * _service(service_time)
    # round() first, so that 44 × 1.1 = 48.400000000000006 cannot turn into an extra worker
    return math.ceil(round(busy * (1 + headroom), 9))


# -- Erlang C: the M/M/c queue in steady state -------------------------------------------------------


def utilisation(arrival_rate: float, service_time: float, servers: int) -> float:
    """ρ = λ × S / c: the fraction of the time each worker is busy.

    >>> utilisation(11, 4, 50)
    0.88
    """
    return _rate(arrival_rate) * _service(service_time) / _servers(servers)


def _require_stable(arrival_rate: float, service_time: float, servers: int) -> None:
    busy = arrival_rate * service_time
    if busy >= servers:
        raise InvalidArgument(
            f"{arrival_rate:g} jobs/s × {service_time:g} s = {busy:g} workers busy on average, but there "
            f"are {servers}: utilisation ρ = {busy / servers:.2f}, and at ρ >= 1 the queue grows forever "
            f"(there is no steady wait to compute). Use at least {math.floor(busy) + 1} servers, or make "
            "jobs arrive less often or finish faster."
        )


def erlang_b(offered_load: float, servers: int) -> float:
    """B(c, a): the chance that all c servers are busy when they are offered a = λ × S of load and
    jobs that find them all busy are turned away (Erlang's loss formula).

        B(0) = 1,   B(k) = a × B(k-1) / (k + a × B(k-1))   for k = 1 .. c

    The textbook form, (a^c / c!) / Σ a^k / k!, overflows a float near c = 170; this recursion keeps
    every intermediate value between 0 and 1, so it is exact enough for thousands of servers.

    >>> round(erlang_b(2, 3), 4)
    0.2105
    """
    load = arguments.positive("offered_load", offered_load, "λ × S, the workers busy on average, e.g. 44")
    blocked = 1.0
    for k in range(1, _servers(servers) + 1):
        blocked = load * blocked / (k + load * blocked)
    return blocked


@dataclass(frozen=True)
class ErlangC:
    """The steady state of an M/M/c queue. Times in seconds."""

    arrival_rate: float
    service_time: float
    servers: int
    utilisation: float  # ρ = λ S / c
    probability_of_waiting: float  # C(c, a): the chance a job finds every worker busy
    mean_wait: float  # Wq: the average time in the queue, before a worker starts the job

    @property
    def mean_time_in_system(self) -> float:
        """W = Wq + S: waiting plus being worked on."""
        return self.mean_wait + self.service_time

    @property
    def mean_queue_length(self) -> float:
        """Lq = λ × Wq (Little's law on the queue alone)."""
        return self.arrival_rate * self.mean_wait

    @property
    def mean_in_system(self) -> float:
        """L = λ × W (Little's law on the whole system)."""
        return self.arrival_rate * self.mean_time_in_system

    def wait_percentile(self, percentile: float) -> float:
        """The wait that this fraction of jobs stays within, e.g. 0.95 for the 95th percentile.

        In M/M/c the wait is 0 with probability 1 - C, and otherwise exponential with rate c/S - λ:

            P(wait > t) = C × exp(-(c/S - λ) × t)   so   t_p = ln(C / (1 - p)) / (c/S - λ)  if C > 1 - p

        and t_p = 0 when at least a fraction p of jobs find a free worker straight away.
        """
        p = _fraction("percentile", percentile)
        if self.probability_of_waiting <= 1 - p:
            return 0.0
        drain_rate = self.servers / self.service_time - self.arrival_rate
        return math.log(self.probability_of_waiting / (1 - p)) / drain_rate


def erlang_c(arrival_rate: float, service_time: float, servers: int) -> ErlangC:
    """Probability of waiting and mean wait in an M/M/c queue (Erlang C).

        a = λ S,  ρ = a / c,  B = erlang_b(a, c)
        C = B / (1 - ρ (1 - B))          the chance an arriving job has to wait
        Wq = C × S / (c - a)             the mean wait in the queue  ( = C / (cμ - λ) )

    Raises InvalidArgument when ρ >= 1: then the queue never settles.

    >>> q = erlang_c(arrival_rate=1, service_time=1, servers=2)   # ρ = 0.5
    >>> round(q.probability_of_waiting, 4), round(q.mean_wait, 4)
    (0.3333, 0.3333)
    >>> round(erlang_c(11, 4, 50).mean_wait, 2)   # the material's ~50 workers: 0.19 s on average
    0.19
    """
    rate, service, count = _rate(arrival_rate), _service(service_time), _servers(servers)
    _require_stable(rate, service, count)
    load = rate * service
    rho = load / count
    blocked = erlang_b(load, count)
    waiting = blocked / (1 - rho * (1 - blocked))
    return ErlangC(arrival_rate=rate, service_time=service, servers=count, utilisation=rho,
                   probability_of_waiting=waiting, mean_wait=waiting * service / (count - load))


def size_pool(arrival_rate: float, service_time: float, target_wait: float, *,
              percentile: float | None = None) -> int:
    """The fewest workers whose Erlang C wait is at most `target_wait` seconds.

    By default the *mean* wait in the queue (Wq) must meet the target. Pass `percentile=0.95` to ask
    that 95 % of jobs wait at most `target_wait` instead: the mean hides the unlucky jobs, and those
    are the ones users notice. The search starts at the fewest workers that keep ρ below 1 and adds
    one at a time; the wait only falls as workers are added, so the first that meets the target is
    the answer.

    >>> size_pool(11, 4, target_wait=1.0)                 # mean wait at most a second
    47
    >>> size_pool(11, 4, target_wait=1.0, percentile=0.95)
    51
    """
    rate, service = _rate(arrival_rate), _service(service_time)
    target = arguments.positive("target_wait", target_wait, "the longest acceptable wait in seconds, e.g. 1.0")
    if percentile is not None:
        _fraction("percentile", percentile)
    servers = math.floor(rate * service) + 1  # the fewest with ρ < 1
    while True:
        queue = erlang_c(rate, service, servers)
        wait = queue.mean_wait if percentile is None else queue.wait_percentile(percentile)
        if wait <= target:
            return servers
        servers += 1


# -- a simulation of M/M/c ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Simulation:
    """One seeded run of an M/M/c queue that starts empty and runs until the last job is done.

    The time averages are measured, not derived: mean_queue_length walks the step function of the
    queue length over the run, and mean_in_system adds the average number of busy workers. Little's
    law is not used to compute them, so it can be checked on the run:
    mean_queue_length ≈ throughput × mean_wait and mean_in_system ≈ throughput × mean_time_in_system.
    """

    customers: int
    servers: int
    horizon: float  # seconds from the start to the moment the last job finished
    mean_wait: float  # measured Wq
    mean_wait_stderr: float  # standard error of mean_wait, from batch means (see _batch_stderr)
    wait_percentiles: dict[float, float]  # {0.95: seconds, ...}
    probability_of_waiting: float  # the fraction of jobs that found every worker busy
    utilisation: float  # busy worker-seconds / (servers × horizon)
    mean_time_in_system: float  # measured W = wait + service
    throughput: float  # customers / horizon: the measured λ
    mean_queue_length: float  # time average of the number of jobs waiting
    mean_in_system: float  # time average of the number of jobs waiting or being worked on
    queue_length: tuple[list[float], list[int]] | None = None  # (times, length from each time on)


def simulate_mmc(arrival_rate: float, service_time: float, servers: int, customers: int = 200_000, *,
                 seed: int = 0, percentiles: tuple[float, ...] = DEFAULT_PERCENTILES,
                 keep_queue_length: bool = False) -> Simulation:
    """Play an M/M/c queue out, job by job: exponential gaps between arrivals (mean 1/λ), exponential
    service times (mean S), `servers` workers, first come first served.

    The whole simulation is one short loop. The workers are a heap of "free at" times: each arriving
    job, in order, takes the worker that frees up first and starts at max(its arrival, that moment).
    With the same seed the run is the same, number for number. Pass keep_queue_length=True for the
    queue length over time, ready for a step plot. 200,000 jobs take about a second or less.

    ρ >= 1 is allowed here (Erlang C refuses it): watch the queue grow and never come back down.
    """
    rate, service, count = _rate(arrival_rate), _service(service_time), _servers(servers)
    n = arguments.whole("customers", customers, "how many jobs to simulate, e.g. 200_000", low=BATCHES)
    for p in percentiles:
        _fraction("percentiles", p)
    rng = random.Random(seed)
    # the randomness first: when each job arrives (exponential gaps), and how long it will take
    arrivals = list(itertools.accumulate(rng.expovariate(rate) for _ in range(n)))
    works = [rng.expovariate(1 / service) for _ in range(n)]

    starts = []
    free_at = [0.0] * count  # a heap: when each worker is next free; free_at[0] is the soonest
    for arrival, work in zip(arrivals, works):
        start = max(arrival, free_at[0])  # wait, if need be, for the first worker to come free
        heapq.heapreplace(free_at, start + work)  # that worker is now busy until start + work
        starts.append(start)

    waits = [s - a for a, s in zip(arrivals, starts)]
    mean_wait = statistics.fmean(waits)
    horizon = max(free_at)  # when the last worker finished
    busy_time = math.fsum(works)
    # The queue: a job joins when it arrives and leaves when a worker starts it. Jobs that start at
    # once never join, so they are left out (they would add a +1 and a -1 at the same instant).
    waited = [k for k, w in enumerate(waits) if w > 0]
    queue_times, queue_lengths = _count_over_time([arrivals[k] for k in waited],
                                                  [starts[k] for k in waited])
    mean_queue_length = _time_average(queue_times, queue_lengths, horizon)

    return Simulation(
        customers=n,
        servers=count,
        horizon=horizon,
        mean_wait=mean_wait,
        mean_wait_stderr=_batch_stderr(waits),
        wait_percentiles=_percentiles(waits, percentiles),
        probability_of_waiting=len(waited) / n,
        utilisation=busy_time / (count * horizon),
        mean_time_in_system=mean_wait + busy_time / n,
        throughput=n / horizon,
        mean_queue_length=mean_queue_length,
        # jobs in the system = jobs waiting + workers busy; busy_time / horizon is the average busy count
        mean_in_system=mean_queue_length + busy_time / horizon,
        queue_length=(queue_times, queue_lengths) if keep_queue_length else None,
    )


def _count_over_time(joins: list[float], leaves: list[float]) -> tuple[list[float], list[int]]:
    """How many are inside, as a step function: at times[i] the count becomes counts[i].

    `joins` and `leaves` are each sorted. At a tie the join goes first, so the count never dips below 0.
    """
    times, counts = [0.0], [0]
    inside = i = j = 0
    while j < len(leaves):
        if i < len(joins) and joins[i] <= leaves[j]:
            now, inside, i = joins[i], inside + 1, i + 1
        else:
            now, inside, j = leaves[j], inside - 1, j + 1
        times.append(now)
        counts.append(inside)
    return times, counts


def _time_average(times: list[float], counts: list[int], horizon: float) -> float:
    """The average height of a step function over [0, horizon]: Σ count × duration / horizon."""
    area = sum(c * (t_next - t) for c, t, t_next in zip(counts, times, times[1:] + [horizon]))
    return area / horizon


def _percentiles(values: list[float], fractions: tuple[float, ...]) -> dict[float, float]:
    """Nearest-rank percentiles: for each p, the smallest value with at least a fraction p at or below."""
    ranked = sorted(values)
    return {p: ranked[max(0, math.ceil(p * len(ranked)) - 1)] for p in fractions}


def _batch_stderr(values: list[float], batches: int = BATCHES) -> float:
    """Standard error of the mean of *correlated* values, by batch means.

    Consecutive waits are far from independent (a job behind a long queue is followed by another), so
    stdev / √n would claim far too much precision. Instead: cut the run into `batches` consecutive
    blocks, average each, and treat the block averages as independent, which they nearly are when each
    block is much longer than the queue's memory. The standard error is stdev(block means) / √batches.
    """
    size = len(values) // batches
    means = [statistics.fmean(values[k * size:(k + 1) * size]) for k in range(batches)]
    return statistics.stdev(means) / math.sqrt(batches)


# -- a backlog ahead of you: the newsletter ------------------------------------------------------------


def wait_behind_backlog(jobs_ahead: int, throughput: float) -> float:
    """Seconds until a job enqueued behind `jobs_ahead` others is started, first in first out: N / X.

    The workers get through `throughput` jobs per second and the new job is started only when every
    job ahead of it has been.

    >>> wait_behind_backlog(48_000, 40)          # 1,200 s: twenty minutes
    1200.0
    """
    ahead = arguments.whole("jobs_ahead", jobs_ahead, "how many jobs are queued ahead, e.g. 48_000", low=0)
    return ahead / arguments.positive("throughput", throughput, "how many jobs the workers finish per second, e.g. 40")


@dataclass(frozen=True)
class Layout:
    """One way to run a burst of bulk jobs next to urgent ones, and what it costs each kind."""

    name: str
    urgent_wait: float  # seconds before a worker starts an urgent job enqueued right after the burst
    bulk_drain: float  # seconds until the last bulk job is done


def compare_layouts(bulk_jobs: int, throughput: float, workers: int, *,
                    dedicated_workers: int = 1) -> list[Layout]:
    """An urgent job (a booking confirmation) enqueued right behind `bulk_jobs` (a newsletter), three ways.

    `throughput` is what all `workers` finish together, so one job takes S = workers / throughput
    seconds (Little's law: workers busy = throughput × S). No other urgent job is ahead.

      one queue, FIFO        the urgent job waits for the whole burst:       bulk_jobs / throughput
      one queue, priorities  it jumps the burst, but every worker is busy
                             with a bulk job: it waits at most one job's S
      two queues             its own workers are idle, so it starts at once; the burst drains on the
                             others alone:  bulk_jobs / (throughput × (workers - dedicated) / workers)

    >>> for layout in compare_layouts(48_000, 40, workers=2):
    ...     print(f"{layout.name:22} {layout.urgent_wait:7.2f} s   {layout.bulk_drain / 60:3.0f} min")
    one queue, FIFO        1200.00 s    20 min
    one queue, priorities     0.05 s    20 min
    two queues                0.00 s    40 min
    """
    count = arguments.whole("workers", workers, "how many workers share the queue, e.g. 2")
    dedicated = arguments.whole("dedicated_workers", dedicated_workers,
                       "how many workers serve only the urgent queue, e.g. 1")
    if dedicated >= count:
        raise InvalidArgument(f"dedicated_workers ({dedicated}) must be fewer than workers ({count}), or "
                              "no worker is left for the bulk jobs. Add workers or dedicate fewer.")
    all_together = wait_behind_backlog(bulk_jobs, throughput)
    one_job = count / throughput  # S
    bulk_throughput = throughput * (count - dedicated) / count
    return [
        Layout("one queue, FIFO", urgent_wait=all_together, bulk_drain=all_together),
        Layout("one queue, priorities", urgent_wait=one_job, bulk_drain=all_together),
        Layout("two queues", urgent_wait=0.0, bulk_drain=wait_behind_backlog(bulk_jobs, bulk_throughput)),
    ]
