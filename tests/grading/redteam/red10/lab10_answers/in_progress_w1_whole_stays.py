# wrong | from-start, until-end (whole stays of overlapping jobs)
def average_in_system(jobs, start, end):
    overlapping = [(a, l) for a, l in jobs if l > start and a < end]
    return sum(l - a for a, l in overlapping) / (end - start)
