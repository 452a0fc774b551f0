# wrong | time-average (two identical jobs counted once)
def average_in_system(jobs, start, end):
    total = 0.0
    for arrived, left in set(jobs):
        total += max(0.0, min(left, end) - max(arrived, start))
    return total / (end - start)
