# expect: wrong
# rule: from-start / until-end (only jobs whose whole stay lies in the window count)
def average_in_system(jobs, start, end):
    area = sum(l - a for a, l in jobs if a >= start and l <= end)
    return area / (end - start)
