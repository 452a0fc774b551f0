# wrong | time-average (a mean stay)
def average_in_system(jobs, start, end):
    stays = [min(l, end) - max(a, start) for a, l in jobs if a < end and l > start]
    return sum(stays) / len(stays) if stays else 0.0
