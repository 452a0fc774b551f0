# expect: correct
# rule: correct (integrate the step function between consecutive event times)
def average_in_system(jobs, start, end):
    times = sorted({start, end, *(t for pair in jobs for t in pair if start < t < end)})
    area = 0.0
    for lo, hi in zip(times, times[1:]):
        mid = (lo + hi) / 2
        area += (hi - lo) * sum(1 for a, l in jobs if a <= mid < l)
    return area / (end - start)
