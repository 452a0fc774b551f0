# expect: correct
# rule: correct (overlap of each stay with the window, summed, over the width)
def average_in_system(jobs, start, end):
    """The time-average number of jobs in the system over [start, end], from (arrived, left) pairs."""
    area = 0.0
    for arrived, left in jobs:
        area += max(0.0, min(left, end) - max(arrived, start))
    return area / (end - start)
