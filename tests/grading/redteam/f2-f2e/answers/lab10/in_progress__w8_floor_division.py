def average_in_system(jobs, start, end):
    total = sum(max(0, min(l, end) - max(a, start)) for a, l in jobs)
    return total // (end - start)
