# wrong | time-average (whole seconds)
def average_in_system(jobs, start, end):
    total = sum(max(0, int(min(l, end)) - int(max(a, start))) for a, l in jobs)
    return total / (end - start)
