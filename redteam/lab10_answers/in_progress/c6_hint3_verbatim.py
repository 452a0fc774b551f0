# expect: correct
# rule: correct (hint 3's final step, word for word)
def average_in_system(jobs, start, end):
    """The time-average number of jobs in the system over [start, end], from (arrived, left) pairs."""
    area = sum(max(0.0, min(left, end) - max(arrived, start)) for arrived, left in jobs)
    return area / (end - start)
