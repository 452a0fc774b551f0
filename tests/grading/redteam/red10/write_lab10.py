# Writes lab 10's blind answers, one file per answer: NAME.py whose first line is "# verdict-expected | rule".
from pathlib import Path
A = {}
A["in_progress_c1_clip_sum"] = ("correct", '''
def average_in_system(jobs, start, end):
    """The time-average number of jobs in the system over [start, end], from (arrived, left) pairs."""
    total = sum(max(0.0, min(left, end) - max(arrived, start)) for arrived, left in jobs)
    return total / (end - start)
''')
A["in_progress_c2_sweep"] = ("correct", '''
def average_in_system(jobs, start, end):
    """Sweep the events in order and integrate the count, step by step."""
    events = []
    for arrived, left in jobs:
        a, b = max(arrived, start), min(left, end)
        if a < b:
            events.append((a, +1))
            events.append((b, -1))
    events.sort()
    area, count, last = 0.0, 0, start
    for t, step in events:
        area += count * (t - last)
        count += step
        last = t
    return area / (end - start)
''')
A["in_progress_c3_loop_branches"] = ("correct", '''
def average_in_system(jobs, start, end):
    width = end - start
    inside = 0
    for arrived, left in jobs:
        if left <= start or arrived >= end:
            continue
        begin = start if arrived < start else arrived
        finish = end if left > end else left
        inside += finish - begin
    return inside / width
''')
A["in_progress_w1_whole_stays"] = ("wrong | from-start, until-end (whole stays of overlapping jobs)", '''
def average_in_system(jobs, start, end):
    overlapping = [(a, l) for a, l in jobs if l > start and a < end]
    return sum(l - a for a, l in overlapping) / (end - start)
''')
A["in_progress_w2_no_start_clip"] = ("wrong | from-start", '''
def average_in_system(jobs, start, end):
    total = 0.0
    for arrived, left in jobs:
        if left > start and arrived < end:
            total += min(left, end) - arrived
    return total / (end - start)
''')
A["in_progress_w3_no_end_clip"] = ("wrong | until-end", '''
def average_in_system(jobs, start, end):
    total = 0.0
    for arrived, left in jobs:
        if left > start and arrived < end:
            total += left - max(arrived, start)
    return total / (end - start)
''')
A["in_progress_w4_headcount"] = ("wrong | time-average (a head count)", '''
def average_in_system(jobs, start, end):
    present = [1 for a, l in jobs if a < end and l > start]
    return len(present) / max(1, round(end - start))
''')
A["in_progress_w5_mean_stay"] = ("wrong | time-average (a mean stay)", '''
def average_in_system(jobs, start, end):
    stays = [min(l, end) - max(a, start) for a, l in jobs if a < end and l > start]
    return sum(stays) / len(stays) if stays else 0.0
''')
A["in_progress_w6_no_max0"] = ("wrong | outside (negative contributions)", '''
def average_in_system(jobs, start, end):
    return sum(min(l, end) - max(a, start) for a, l in jobs) / (end - start)
''')
A["in_progress_w7_divide_by_end"] = ("wrong | time-average (divides by end, right only when start is 0)", '''
def average_in_system(jobs, start, end):
    return sum(max(0, min(l, end) - max(a, start)) for a, l in jobs) / end
''')
A["in_progress_w8_integer_seconds"] = ("wrong | time-average (whole seconds)", '''
def average_in_system(jobs, start, end):
    total = sum(max(0, int(min(l, end)) - int(max(a, start))) for a, l in jobs)
    return total / (end - start)
''')
A["in_progress_w9_drop_early"] = ("wrong | from-start (drops jobs arrived before start)", '''
def average_in_system(jobs, start, end):
    total = sum(min(l, end) - a for a, l in jobs if start <= a < end)
    return total / (end - start)
''')
A["pool_c1_loop_from_load"] = ("correct", '''
import math
def workers_for(arrival_rate, service_time, target_wait):
    c = math.floor(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
        c += 1
    return c
''')
A["pool_c2_bisect"] = ("correct", '''
def workers_for(arrival_rate, service_time, target_wait):
    load = arrival_rate * service_time
    low = int(load)          # never enough: rho >= 1
    high = low + 1
    while queueing_theory.erlang_c(arrival_rate, service_time, high).mean_wait > target_wait:
        high = low + 2 * (high - low)
    while high - low > 1:    # low fails, high meets the target
        mid = (low + high) // 2
        if mid > load and queueing_theory.erlang_c(arrival_rate, service_time, mid).mean_wait <= target_wait:
            high = mid
        else:
            low = mid
    return high
''')
A["pool_c3_count_from_one"] = ("correct", '''
import itertools
def workers_for(arrival_rate, service_time, target_wait):
    for c in itertools.count(1):
        if c <= arrival_rate * service_time:
            continue
        if not erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
            return c
''')
A["pool_w1_ceil_load"] = ("wrong | more-than-load (starts at ceil, = load when integer)", '''
import math
def workers_for(arrival_rate, service_time, target_wait):
    c = max(1, math.ceil(arrival_rate * service_time))
    while True:
        try:
            if erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait:
                return c
        except Exception:
            return c
        c += 1
''')
A["pool_w2_strict_less"] = ("wrong | met-exactly", '''
import math
def workers_for(arrival_rate, service_time, target_wait):
    c = math.floor(arrival_rate * service_time) + 1
    while not erlang_c(arrival_rate, service_time, c).mean_wait < target_wait:
        c += 1
    return c
''')
A["pool_w3_one_too_many"] = ("wrong | fewest-meeting-target (off by one)", '''
import math
def workers_for(arrival_rate, service_time, target_wait):
    c = math.floor(arrival_rate * service_time) + 1
    while True:
        c += 1
        if erlang_c(arrival_rate, service_time, c - 1).mean_wait <= target_wait:
            return c
''')
A["pool_w4_rule_of_thumb"] = ("wrong | fewest-meeting-target (rule of thumb, target ignored)", '''
import math
def workers_for(arrival_rate, service_time, target_wait):
    return math.ceil(arrival_rate * service_time * 1.1)
''')
A["pool_w5_float"] = ("wrong | whole-workers (returns a float)", '''
def workers_for(arrival_rate, service_time, target_wait):
    c = arrival_rate * service_time // 1 + 1
    while erlang_c(arrival_rate, service_time, int(c)).mean_wait > target_wait:
        c += 1
    return c
''')
A["pool_w6_probability"] = ("wrong | fewest-meeting-target (chance of waiting x S, not the mean wait)", '''
import math
def workers_for(arrival_rate, service_time, target_wait):
    c = math.floor(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, c).probability_of_waiting * service_time > target_wait:
        c += 1
    return c
''')
A["pool_w7_capped_range"] = ("wrong | fewest-meeting-target (search capped at 100 workers)", '''
def workers_for(arrival_rate, service_time, target_wait):
    for c in range(1, 101):
        if c > arrival_rate * service_time and erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait:
            return c
    return 100
''')
A["pool_w8_zero_for_no_load"] = ("wrong | whole-workers (0 workers for hardly any load)", '''
def workers_for(arrival_rate, service_time, target_wait):
    c = round(arrival_rate * service_time)
    while c <= arrival_rate * service_time or erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
        c += 1
        if c > arrival_rate * service_time and arrival_rate * service_time < 0.5:
            return c - 1
    return c
''')
for name, (verdict, code) in A.items():
    Path(f"lab10_answers/{name}.py").write_text(f"# {verdict}\n" + code.lstrip("\n"))
