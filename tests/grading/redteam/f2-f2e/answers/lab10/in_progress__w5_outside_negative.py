def average_in_system(jobs, start, end):
    return sum(min(l, end) - max(a, start) for a, l in jobs) / (end - start)
