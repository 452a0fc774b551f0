# wrong | from-start (drops jobs arrived before start)
def average_in_system(jobs, start, end):
    total = sum(min(l, end) - a for a, l in jobs if start <= a < end)
    return total / (end - start)
