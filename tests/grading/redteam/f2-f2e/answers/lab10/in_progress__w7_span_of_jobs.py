def average_in_system(jobs, start, end):
    inside = [(max(a, start), min(l, end)) for a, l in jobs if a < end and l > start]
    if not inside:
        return 0.0
    span = max(l for _, l in inside) - min(a for a, _ in inside)
    return sum(l - a for a, l in inside) / span
