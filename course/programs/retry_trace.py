"""StayHub's confirmation email through an outage, attempt by attempt.

The policy (course.core.backoff, the same one the reference queue uses): retry on a timeout or a 5xx; after
attempt n fails wait random(0, 2^(n-1)) s, capped at 5 minutes; at most 8 attempts, then the
dead-letter table and an alert.

The scenario: the email provider is down from 11:55 to 12:03. At 12:00:00 a guest books; the email
job is inserted in the booking's transaction and a worker picks it up at once.

Times here are seconds after the booking (12:00:00 is 0.0, 12:03:00 is 180.0); `clock()` turns them
back into a time of day. An attempt succeeds when it is made at or after the moment the provider is
back; the outage is the interval [down_from, up_at).

The short story, which the functions below let a learner check for themselves:

>>> worst_case_waits()                 # every wait at its ceiling
[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
>>> sum(worst_case_waits())
127.0
>>> [clock(t) for t in attempt_times(worst_case_waits())]
['12:00:00', '12:00:01', '12:00:03', '12:00:07', '12:00:15', '12:00:31', '12:01:03', '12:02:07']
>>> dead_letters_for_sure()            # 12:02:07 is the latest attempt 8 can be: before 12:03
True

So with this policy the job *always* reaches the dead-letter table, on average about a minute after the
booking and never later than 12:02:07, and the guest gets no email until an operator redrives it after
12:03 (guest_story). What would ride the outage out instead (attempts_to_ride_out, 10,000 replays):

    still retrying at 12:03 (180 s)      9 attempts at the very least (waits at their ceilings), 12 for 99 %
    a whole 8-minute outage (480 s)      10 at the very least, 15 for 99 % with the 5-minute cap;
                                         29 with a 1-minute cap, 13 with a 1-hour one

Raising the cap alone changes nothing for 8 attempts: their ceilings (1 to 64 s) never reach it. The
timing assumes each failure comes back at once (a 503). If every attempt instead hangs until a 10 s
timeout (attempt_s=10), the latest attempt 8 moves to 12:03:17 and about 1 job in 200 gets through.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from course.core.backoff import BASE_S, CAP_S, MAX_ATTEMPTS, backoff_ceiling, backoff_delay
from course.errors import InvalidArgument

BOOKED_AT = "12:00:00"  # time 0.0
PROVIDER_DOWN_FROM_S = -300.0  # 11:55:00
PROVIDER_UP_AT_S = 180.0  # 12:03:00
DEFAULT_RUNS = 10_000


# -- checking what callers give us -------------------------------------------------------------------


def _seconds(name: str, value: object, meaning: str, *, allow_zero: bool = True,
             allow_negative: bool = False) -> float:
    """`value` as a float, or an InvalidArgument that says what `name` should be."""
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if allow_negative:
        ok, bound = is_number, "a finite number"
    elif allow_zero:
        ok, bound = is_number and value >= 0, "0 or more"
    else:
        ok, bound = is_number and value > 0, "more than 0"
    if not ok:
        raise InvalidArgument(f"{name} is in seconds and must be {bound}; got {value!r}. Pass {meaning}.")
    return float(value)


def _whole(name: str, value: object, meaning: str, *, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidArgument(f"{name} must be a whole number, {low} or more; got {value!r}. Pass {meaning}.")
    return value


def _policy(max_attempts: object, base: object, cap: object) -> tuple[int, float, float]:
    return (_whole("max_attempts", max_attempts, "how many runs a job gets, the first one included, e.g. 8"),
            _seconds("base", base, "the first wait's ceiling, e.g. 1.0", allow_zero=False),
            _seconds("cap", cap, "the longest any wait may be, e.g. 300.0", allow_zero=False))


def clock(seconds: float, start: str = BOOKED_AT) -> str:
    """A time of day, `seconds` after `start` ("HH:MM:SS"), to the whole second.

    >>> clock(127), clock(-300)
    ('12:02:07', '11:55:00')
    """
    origin = datetime.strptime(start, "%H:%M:%S")
    return (origin + timedelta(seconds=round(seconds))).strftime("%H:%M:%S")


# -- (a) the waits, and when each attempt happens ----------------------------------------------------


def worst_case_waits(max_attempts: int = MAX_ATTEMPTS, *, base: float = BASE_S,
                     cap: float = CAP_S) -> list[float]:
    """Every wait at its ceiling: min(cap, base × 2^(n-1)) after attempt n, for n = 1 .. max_attempts-1.

    The retries are as spread out as this policy can make them: the *latest* each attempt can happen.
    """
    attempts, base, cap = _policy(max_attempts, base, cap)
    return [backoff_ceiling(n, base=base, cap=cap) for n in range(1, attempts)]


def random_waits(rng: random.Random, max_attempts: int = MAX_ATTEMPTS, *, base: float = BASE_S,
                 cap: float = CAP_S) -> list[float]:
    """One draw of the waits a job would see if every attempt failed (course.core.backoff's full jitter)."""
    attempts, base, cap = _policy(max_attempts, base, cap)
    return [backoff_delay(n, base=base, cap=cap, rng=rng) for n in range(1, attempts)]


def attempt_times(waits: Sequence[float], *, start: float = 0.0, attempt_s: float = 0.0) -> list[float]:
    """When each attempt starts, if every one fails: attempt k+1 = attempt k + attempt_s + waits[k].

    `attempt_s` is how long a failing attempt takes: 0 for a 503 that comes back at once, the client's
    timeout for a provider that does not answer. len(waits) + 1 attempts.
    """
    start = _seconds("start", start, "seconds after the booking, e.g. 0.0", allow_negative=True)
    took = _seconds("attempt_s", attempt_s, "how long a failing attempt takes, e.g. 0.0 or a 10 s timeout")
    times = [start]
    for wait in waits:
        wait = _seconds("each wait", wait, "the waits from worst_case_waits() or random_waits()")
        times.append(times[-1] + took + wait)
    return times


# -- one job through the outage ----------------------------------------------------------------------


@dataclass(frozen=True)
class Trace:
    """What happened to one job. Times are seconds after the booking."""

    attempts: list[float]  # when each attempt was made, in order
    delivered_at: float | None  # the attempt that reached a working provider
    dead_lettered_at: float | None  # when the last attempt failed and the job was moved aside

    @property
    def failed_attempts(self) -> int:
        return len(self.attempts) - (self.delivered_at is not None)


def trace_job(waits: Sequence[float], *, start: float = 0.0, down_from: float = PROVIDER_DOWN_FROM_S,
              up_at: float = PROVIDER_UP_AT_S, attempt_s: float = 0.0) -> Trace:
    """Play one job against an outage [down_from, up_at): it stops at the first attempt made while the
    provider is up, or is dead-lettered after its last failing attempt (len(waits) + 1 attempts)."""
    down_from = _seconds("down_from", down_from, "when the outage starts, e.g. -300.0", allow_negative=True)
    up_at = _seconds("up_at", up_at, "when the provider is back, e.g. 180.0", allow_negative=True)
    if up_at < down_from:
        raise InvalidArgument(f"the outage ends (up_at={up_at:g}) before it starts "
                              f"(down_from={down_from:g}); swap them.")
    made = []
    for at in attempt_times(waits, start=start, attempt_s=attempt_s):
        made.append(at)
        if not down_from <= at < up_at:
            return Trace(made, delivered_at=at, dead_lettered_at=None)
    return Trace(made, delivered_at=None, dead_lettered_at=made[-1] + attempt_s)


def dead_letters_for_sure(*, start: float = 0.0, up_at: float = PROVIDER_UP_AT_S,
                          max_attempts: int = MAX_ATTEMPTS, base: float = BASE_S, cap: float = CAP_S,
                          attempt_s: float = 0.0) -> bool:
    """True when even the latest possible last attempt (every wait at its ceiling) comes before `up_at`.

    Jitter only ever makes waits shorter, so then no draw of the dice can save the job.
    """
    latest = attempt_times(worst_case_waits(max_attempts, base=base, cap=cap), start=start,
                           attempt_s=attempt_s)[-1]
    return latest < up_at


# -- (b) many jobs, many draws -----------------------------------------------------------------------


@dataclass(frozen=True)
class AttemptSpread:
    """When attempt `attempt` happened, over the runs that got that far (seconds after the booking)."""

    attempt: int
    runs: int
    earliest: float
    median: float
    latest: float


@dataclass(frozen=True)
class OutageSimulation:
    runs: int
    attempts: list[AttemptSpread]
    dead_letter_probability: float  # used every attempt before the provider came back
    # when those runs were dead-lettered (its `attempt` is the last one, max_attempts); None if none were
    dead_lettered_at: AttemptSpread | None

    @property
    def delivered_probability(self) -> float:
        return 1 - self.dead_letter_probability


def simulate_outage(runs: int = DEFAULT_RUNS, *, seed: int = 0, start: float = 0.0,
                    down_from: float = PROVIDER_DOWN_FROM_S, up_at: float = PROVIDER_UP_AT_S,
                    max_attempts: int = MAX_ATTEMPTS, base: float = BASE_S, cap: float = CAP_S,
                    attempt_s: float = 0.0) -> OutageSimulation:
    """Trace the job `runs` times with fresh random waits (seeded: the same seed, the same answer).

    Reports when each attempt happened and the fraction of runs that ended in the dead-letter table.
    """
    count = _whole("runs", runs, "how many times to replay the job, e.g. 10_000")
    rng = random.Random(seed)
    traces = [trace_job(random_waits(rng, max_attempts, base=base, cap=cap), start=start,
                        down_from=down_from, up_at=up_at, attempt_s=attempt_s) for _ in range(count)]
    by_attempt: dict[int, list[float]] = {}
    for trace in traces:
        for number, at in enumerate(trace.attempts, start=1):
            by_attempt.setdefault(number, []).append(at)
    dead = [t.dead_lettered_at for t in traces if t.dead_lettered_at is not None]
    return OutageSimulation(
        runs=count,
        attempts=[_spread(number, times) for number, times in sorted(by_attempt.items())],
        dead_letter_probability=len(dead) / count,
        dead_lettered_at=_spread(max_attempts, dead) if dead else None,
    )


def _spread(attempt: int, times: list[float]) -> AttemptSpread:
    return AttemptSpread(attempt, len(times), min(times), statistics.median(times), max(times))


def attempts_needed(outage_s: float, *, base: float = BASE_S, cap: float = CAP_S, attempt_s: float = 0.0,
                    runs: int = DEFAULT_RUNS, seed: int = 0) -> list[int]:
    """How many attempts a job needs to outlast an outage of `outage_s` seconds, in each of `runs` replays.

    The job's first attempt comes as the outage starts, and it keeps retrying with course.core.backoff's
    waits, with no limit, until an attempt comes at or after the end: that attempt's number is what a
    max_attempts setting must allow. (Seeded: the same seed gives the same list.)
    """
    outage = _seconds("outage_s", outage_s, "how long the provider is down, e.g. 480.0 for 8 minutes")
    took = _seconds("attempt_s", attempt_s, "how long a failing attempt takes, e.g. 0.0 or a 10 s timeout")
    _, base, cap = _policy(1, base, cap)
    rng = random.Random(seed)
    needed = []
    for _ in range(_whole("runs", runs, "how many times to replay the job, e.g. 10_000")):
        attempt, at = 1, 0.0
        while at < outage:
            at += took + backoff_delay(attempt, base=base, cap=cap, rng=rng)
            attempt += 1
        needed.append(attempt)
    return needed


def ride_out_probability(outage_s: float, *, max_attempts: int = MAX_ATTEMPTS, base: float = BASE_S,
                         cap: float = CAP_S, attempt_s: float = 0.0, runs: int = DEFAULT_RUNS,
                         seed: int = 0) -> float:
    """The chance that a job whose first attempt comes as an `outage_s`-long outage starts is still being
    retried when it ends, so one of its attempts gets through: the share of replays that need at most
    `max_attempts`."""
    limit = _whole("max_attempts", max_attempts, "how many runs a job gets, the first one included, e.g. 8")
    needed = attempts_needed(outage_s, base=base, cap=cap, attempt_s=attempt_s, runs=runs, seed=seed)
    return sum(n <= limit for n in needed) / len(needed)


def attempts_to_ride_out(outage_s: float, *, confidence: float = 0.99, base: float = BASE_S,
                         cap: float = CAP_S, attempt_s: float = 0.0, runs: int = DEFAULT_RUNS,
                         seed: int = 0) -> int:
    """The smallest max_attempts that rides out an outage of `outage_s` with at least this probability:
    the `confidence` quantile of attempts_needed.

    With full jitter no number of attempts is *certain* (every wait could come out near 0), which is
    why this asks for a probability.
    """
    is_fraction = isinstance(confidence, (int, float)) and not isinstance(confidence, bool)
    if not is_fraction or not 0 < confidence < 1:
        raise InvalidArgument(f"confidence must be a fraction between 0 and 1 (exclusive); "
                              f"got {confidence!r}. Pass 0.99 for 99 %.")
    needed = sorted(attempts_needed(outage_s, base=base, cap=cap, attempt_s=attempt_s, runs=runs, seed=seed))
    return needed[math.ceil(confidence * len(needed)) - 1]


# -- (c) what the guest sees and receives --------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    at: float  # seconds after the booking
    what: str

    def __str__(self) -> str:
        return f"{clock(self.at)}  {self.what}"


def guest_story(waits: Sequence[float] | None = None, *, redrive_at: float | None = None,
                down_from: float = PROVIDER_DOWN_FROM_S, up_at: float = PROVIDER_UP_AT_S,
                attempt_s: float = 0.0) -> list[Event]:
    """The booking's timeline: the checkout, every attempt, the dead letter, and the redrive if any.

    `waits` defaults to the worst case (every wait at its ceiling). `redrive_at` is when an operator,
    alerted by the dead letter, moves the job back (course.core.queue.redrive resets its attempts): the
    job then runs again with the same policy, from that moment.

    >>> for event in guest_story(redrive_at=600):
    ...     print(event)
    12:00:00  guest books; the page says 'Booking confirmed' (the email is a job, not part of the request)
    12:00:00  attempt 1: provider down, fails; retry in 1 s
    12:00:01  attempt 2: provider down, fails; retry in 2 s
    12:00:03  attempt 3: provider down, fails; retry in 4 s
    12:00:07  attempt 4: provider down, fails; retry in 8 s
    12:00:15  attempt 5: provider down, fails; retry in 16 s
    12:00:31  attempt 6: provider down, fails; retry in 32 s
    12:01:03  attempt 7: provider down, fails; retry in 64 s
    12:02:07  attempt 8: provider down, fails; no attempts left
    12:02:07  job moved to the dead-letter table; alert sent; the guest has no email
    12:03:00  provider is back; the job stays in the dead-letter table
    12:10:00  operator redrives the job
    12:10:00  attempt 1: email sent; the guest receives it 10 min after booking
    """
    if waits is None:
        waits = worst_case_waits()
    events = [Event(0.0, "guest books; the page says 'Booking confirmed' (the email is a job, "
                         "not part of the request)")]
    first = trace_job(waits, start=0.0, down_from=down_from, up_at=up_at, attempt_s=attempt_s)
    events += _attempt_events(first, waits)
    if first.delivered_at is not None:
        return events
    events.append(Event(first.dead_lettered_at, "job moved to the dead-letter table; alert sent; "
                                                "the guest has no email"))
    if redrive_at is None:
        if first.dead_lettered_at < up_at:
            events.append(Event(up_at, "provider is back; the job stays in the dead-letter table"))
        events.append(Event(max(up_at, first.dead_lettered_at),
                            "nobody redrives the job: the guest never gets the email"))
        return events
    redrive_at = _seconds("redrive_at", redrive_at, "when an operator redrives the job, e.g. 600.0",
                          allow_negative=True)
    if redrive_at < first.dead_lettered_at:
        raise InvalidArgument(f"redrive_at ({clock(redrive_at)}) is before the job was dead-lettered "
                              f"({clock(first.dead_lettered_at)}); pass a later time.")
    if first.dead_lettered_at < up_at:
        still_dead = redrive_at >= up_at
        events.append(Event(up_at, "provider is back" + ("; the job stays in the dead-letter table"
                                                         if still_dead else "")))
    events.append(Event(redrive_at, "operator redrives the job"))
    # a redrive gives the job its attempts back: replay the same waits from the redrive on
    again = trace_job(waits, start=redrive_at, down_from=down_from, up_at=up_at, attempt_s=attempt_s)
    events += _attempt_events(again, waits)
    if again.dead_lettered_at is not None:
        events.append(Event(again.dead_lettered_at, "dead-lettered again: redriven before the provider "
                                                    "was back"))
    return sorted(events, key=lambda event: event.at)  # stable: events at the same time keep their order


def _attempt_events(trace: Trace, waits: Sequence[float]) -> list[Event]:
    events = []
    for number, at in enumerate(trace.attempts, start=1):
        if number == len(trace.attempts) and trace.delivered_at is not None:
            events.append(Event(at, f"attempt {number}: email sent; the guest receives it "
                                    f"{_duration(at)} after booking"))
        elif number <= len(waits):
            events.append(Event(at, f"attempt {number}: provider down, fails; retry in "
                                    f"{waits[number - 1]:.3g} s"))
        else:
            events.append(Event(at, f"attempt {number}: provider down, fails; no attempts left"))
    return events


def _duration(seconds: float) -> str:
    """'10 min', '2 min 7 s', '45 s'."""
    minutes, rest = divmod(round(seconds), 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min" + (f" {rest} s" if rest else "")


# -- requests a struggling provider receives -------------------------------------------------------


@dataclass(frozen=True)
class OutageLoad:
    """What `jobs` jobs that all start failing at the start of an outage do to the provider."""

    requests: int  # requests sent while the provider was down
    dead_lettered: int  # jobs that gave up before it came back


def requests_with_fixed_pause(outage_s: float, *, jobs: int = 1, pause_s: float = 0.1,
                              request_s: float = 0.0, max_attempts: int | None = None) -> OutageLoad:
    """A retry loop with no backoff: try, wait `pause_s`, try again.

    Each job tries at 0, p, 2p, ... with p = request_s + pause_s, so while the provider is down for D
    seconds it sends ⌈D / p⌉ requests, or max_attempts if that comes first (and then it gives up):

        requests = jobs × min(⌈D / p⌉, max_attempts)

    >>> requests_with_fixed_pause(480, jobs=100, pause_s=0.1).requests   # 8 minutes, 100 jobs
    480000
    """
    outage = _seconds("outage_s", outage_s, "how long the provider is down, e.g. 480.0")
    count = _whole("jobs", jobs, "how many jobs are failing, e.g. 100", low=0)
    period = (_seconds("pause_s", pause_s, "the pause between tries, e.g. 0.1")
              + _seconds("request_s", request_s, "how long one failing request takes, e.g. 0.05"))
    if period == 0:
        raise InvalidArgument("pause_s and request_s are both 0: the loop would send requests without end. "
                              "Give the loop a pause (e.g. pause_s=0.1) or a request time.")
    # round() first, so that 0.3 / 0.1 = 2.9999999999999996 counts as 3 tries, not 2 and a bit
    per_job = math.ceil(round(outage / period, 9))
    if max_attempts is not None:
        limit = _whole("max_attempts", max_attempts, "how many runs a job gets, e.g. 8")
        if per_job >= limit:
            return OutageLoad(requests=count * limit, dead_lettered=count)
    return OutageLoad(requests=count * per_job, dead_lettered=0)


def requests_with_backoff(outage_s: float, *, jobs: int = 1, max_attempts: int = MAX_ATTEMPTS,
                          base: float = BASE_S, cap: float = CAP_S, request_s: float = 0.0,
                          seed: int = 0) -> OutageLoad:
    """The same jobs with course.core.backoff's policy, simulated (seeded). Never more than
    jobs × max_attempts requests, however long the outage."""
    outage = _seconds("outage_s", outage_s, "how long the provider is down, e.g. 480.0")
    count = _whole("jobs", jobs, "how many jobs are failing, e.g. 100", low=0)
    rng = random.Random(seed)
    requests = dead = 0
    for _ in range(count):
        trace = trace_job(random_waits(rng, max_attempts, base=base, cap=cap), start=0.0, down_from=0.0,
                          up_at=outage, attempt_s=request_s)
        requests += trace.failed_attempts
        dead += trace.dead_lettered_at is not None
    return OutageLoad(requests=requests, dead_lettered=dead)
