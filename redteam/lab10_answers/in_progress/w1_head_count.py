# expect: wrong
# rule: time-average (a head count of jobs that touch the window, not an average over time)
def average_in_system(jobs, start, end):
    return float(sum(1 for arrived, left in jobs if left > start and arrived < end))
