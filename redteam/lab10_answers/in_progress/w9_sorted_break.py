# expect: wrong
# rule: outside / from-start (assumes the jobs come sorted by arrival: stops at the first one after the window)
def average_in_system(jobs, start, end):
    area = 0.0
    for arrived, left in jobs:
        if arrived >= end:
            break
        area += max(0.0, min(left, end) - max(arrived, start))
    return area / (end - start)
