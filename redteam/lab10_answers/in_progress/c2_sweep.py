# expect: correct
# rule: correct (an event sweep: +1 at each clipped arrival, -1 at each clipped departure)
def average_in_system(jobs, start, end):
    events = []
    for arrived, left in jobs:
        a, l = max(arrived, start), min(left, end)
        if l > a:
            events += [(a, 1), (l, -1)]
    events.sort()
    area, count, t = 0.0, 0, start
    for when, delta in events:
        area += count * (when - t)
        count, t = count + delta, when
    return area / (end - start)
