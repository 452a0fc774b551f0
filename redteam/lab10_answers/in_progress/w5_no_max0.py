# expect: wrong
# rule: outside (a job entirely outside the window subtracts: no max(0, ...))
def average_in_system(jobs, start, end):
    area = sum(min(left, end) - max(arrived, start) for arrived, left in jobs)
    return area / (end - start)
