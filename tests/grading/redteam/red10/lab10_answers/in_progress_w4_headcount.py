# wrong | time-average (a head count)
def average_in_system(jobs, start, end):
    present = [1 for a, l in jobs if a < end and l > start]
    return len(present) / max(1, round(end - start))
