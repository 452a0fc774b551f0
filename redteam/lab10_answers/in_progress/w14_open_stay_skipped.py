# expect: wrong
# rule: until-end (a job that leaves after end is treated as not finished and skipped)
def average_in_system(jobs, start, end):
    area = 0.0
    for arrived, left in jobs:
        if left > end:
            continue
        area += max(0.0, left - max(arrived, start))
    return area / (end - start)
