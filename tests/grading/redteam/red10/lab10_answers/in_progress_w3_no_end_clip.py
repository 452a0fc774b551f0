# wrong | until-end
def average_in_system(jobs, start, end):
    total = 0.0
    for arrived, left in jobs:
        if left > start and arrived < end:
            total += left - max(arrived, start)
    return total / (end - start)
