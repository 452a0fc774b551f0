def average_in_system(jobs, start, end):
    total = sum(min(l, end) - a for a, l in jobs if a < end and l > start)
    return total / (end - start)
