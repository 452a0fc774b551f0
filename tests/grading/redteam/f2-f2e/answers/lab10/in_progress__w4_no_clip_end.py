def average_in_system(jobs, start, end):
    total = sum(l - max(a, start) for a, l in jobs if a < end and l > start)
    return total / (end - start)
