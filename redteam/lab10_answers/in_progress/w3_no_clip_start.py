# expect: wrong
# rule: from-start (a job that arrived before start counts from its arrival)
def average_in_system(jobs, start, end):
    area = 0.0
    for arrived, left in jobs:
        if left > start and arrived < end:
            area += min(left, end) - arrived
    return area / (end - start)
