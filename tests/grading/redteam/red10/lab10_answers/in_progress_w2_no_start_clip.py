# wrong | from-start
def average_in_system(jobs, start, end):
    total = 0.0
    for arrived, left in jobs:
        if left > start and arrived < end:
            total += min(left, end) - arrived
    return total / (end - start)
