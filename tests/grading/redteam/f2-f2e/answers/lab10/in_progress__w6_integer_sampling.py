def average_in_system(jobs, start, end):
    # count who is there at each whole second
    seconds = range(int(start), int(end))
    return sum(sum(1 for a, l in jobs if a <= t < l) for t in seconds) / len(seconds)
