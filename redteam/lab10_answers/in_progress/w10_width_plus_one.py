# expect: wrong
# rule: time-average (counts seconds as whole ticks: the width is end - start + 1)
def average_in_system(jobs, start, end):
    area = sum(max(0.0, min(l, end) - max(a, start)) for a, l in jobs)
    return area / (end - start + 1)
