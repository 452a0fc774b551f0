# correct
def average_in_system(jobs, start, end):
    """Sweep the events in order and integrate the count, step by step."""
    events = []
    for arrived, left in jobs:
        a, b = max(arrived, start), min(left, end)
        if a < b:
            events.append((a, +1))
            events.append((b, -1))
    events.sort()
    area, count, last = 0.0, 0, start
    for t, step in events:
        area += count * (t - last)
        count += step
        last = t
    return area / (end - start)
