def average_in_system(jobs, start, end):
    return sum(1 for a, l in jobs if a < end and l > start) / (end - start)
