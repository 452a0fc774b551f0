# expect: wrong
# rule: from-start / until-end (lambda x W with whole stays of the jobs that arrived in the window)
def average_in_system(jobs, start, end):
    inside = [(a, l) for a, l in jobs if start <= a < end]
    if not inside:
        return 0.0
    rate = len(inside) / (end - start)
    mean_stay = sum(l - a for a, l in inside) / len(inside)
    return rate * mean_stay
