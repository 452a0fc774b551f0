def average_in_system(jobs, start, end):
    events = []
    for arrived, left in jobs:
        a, l = max(arrived, start), min(left, end)
        if a < l:
            events += [(a, +1), (l, -1)]
    events.sort()
    area, count, last = 0.0, 0, start
    for t, step in events:
        area += count * (t - last)
        count += step
        last = t
    return area / (end - start)
