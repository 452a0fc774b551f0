# wrong | time-average (divides by end, right only when start is 0)
def average_in_system(jobs, start, end):
    return sum(max(0, min(l, end) - max(a, start)) for a, l in jobs) / end
