# expect: wrong
# rule: until-end (a job still there at end counts until it leaves)
def average_in_system(jobs, start, end):
    area = 0.0
    for arrived, left in jobs:
        if left > start and arrived < end:
            area += left - max(arrived, start)
    return area / (end - start)
