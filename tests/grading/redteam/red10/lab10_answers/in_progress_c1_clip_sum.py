# correct
def average_in_system(jobs, start, end):
    """The time-average number of jobs in the system over [start, end], from (arrived, left) pairs."""
    total = sum(max(0.0, min(left, end) - max(arrived, start)) for arrived, left in jobs)
    return total / (end - start)
