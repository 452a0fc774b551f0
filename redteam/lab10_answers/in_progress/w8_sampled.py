# expect: wrong
# rule: time-average (sampled every 0.1 s, like the jobs-table count: off between the samples)
def average_in_system(jobs, start, end):
    step = 0.1
    n = max(1, int(round((end - start) / step)))
    total = 0
    for k in range(n):
        t = start + k * step
        total += sum(1 for a, l in jobs if a <= t < l)
    return total / n
