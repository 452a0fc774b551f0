def average_in_system(jobs, start, end):
    steps = 50
    dt = (end - start) / steps
    return sum(sum(1 for a, l in jobs if a <= start + k * dt < l) for k in range(steps)) / steps
