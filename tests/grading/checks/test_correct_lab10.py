"""Lab 10's checks pass correct answers written unlike the reference (issue 22): other loops, other
search orders, Erlang C by hand, and the answers the hints spell out. Some come from the blind red team
of issue 22's round for labs 10 and 11."""

import itertools
import math

import pytest

from course.errors import InvalidArgument
from course.grading import run_check
from course.programs.queueing_theory import erlang_c

# -- 10.in_progress ------------------------------------------------------------------------------


def hint_spelled_out(jobs, start, end):
    area = sum(max(0.0, min(left, end) - max(arrived, start)) for arrived, left in jobs)
    return area / (end - start)


def event_sweep(jobs, start, end):
    """+1 at each clipped arrival, -1 at each clipped departure, integrated in time order."""
    events = []
    for arrived, left in jobs:
        a, l = max(arrived, start), min(left, end)
        if l > a:
            events += [(a, 1), (l, -1)]
    events.sort()
    area, count, t = 0.0, 0, start
    for when, delta in events:
        area += count * (when - t)
        count, t = count + delta, when
    return area / (end - start)


def case_by_case(jobs, start, end):
    total = 0.0
    for arrived, left in jobs:
        if left <= start or arrived >= end:
            continue
        total += (end if left > end else left) - (start if arrived < start else arrived)
    return total / (end - start)


def step_function(jobs, start, end):
    """The count between consecutive event times, at each interval's middle."""
    times = sorted({start, end, *(t for pair in jobs for t in pair if start < t < end)})
    area = 0.0
    for lo, hi in zip(times, times[1:]):
        area += (hi - lo) * sum(1 for a, l in jobs if a <= (lo + hi) / 2 < l)
    return area / (end - start)


# -- 10.pool -------------------------------------------------------------------------------------


def pool_hint_spelled_out(arrival_rate, service_time, target_wait):
    c = math.floor(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
        c += 1
    return c


def from_one_past_the_refusals(arrival_rate, service_time, target_wait):
    c = 1
    while True:
        try:
            if erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait:
                return c
        except InvalidArgument:  # rho >= 1
            pass
        c += 1


def doubling_then_bisection(arrival_rate, service_time, target_wait):
    def ok(c):
        return erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait
    lo = math.floor(arrival_rate * service_time) + 1
    if ok(lo):
        return lo
    hi = lo * 2
    while not ok(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def next_over_count(arrival_rate, service_time, target_wait):
    first = int(arrival_rate * service_time) + 1
    return next(c for c in itertools.count(first) if erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait)


def erlang_c_by_hand(arrival_rate, service_time, target_wait):
    def wait(c):
        a = arrival_rate * service_time
        b = 1.0
        for k in range(1, c + 1):
            b = a * b / (k + a * b)
        return b / (1 - a / c * (1 - b)) * service_time / (c - a)
    c = math.floor(arrival_rate * service_time) + 1
    while wait(c) > target_wait:
        c += 1
    return c


@pytest.mark.parametrize("answer", [hint_spelled_out, event_sweep, case_by_case, step_function])
def test_correct_averages_pass(answer):
    report = run_check("10.in_progress", average_in_system=answer)
    assert report.status == "passed", report.render()


@pytest.mark.parametrize("answer", [pool_hint_spelled_out, from_one_past_the_refusals, doubling_then_bisection,
                                    next_over_count, erlang_c_by_hand])
def test_correct_pool_sizes_pass(answer):
    report = run_check("10.pool", workers_for=answer)
    assert report.status == "passed", report.render()
