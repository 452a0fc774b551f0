# expect: wrong
# rule: time-average (the mean clipped stay: divides by the number of jobs, not by the width)
def average_in_system(jobs, start, end):
    stays = [max(0.0, min(l, end) - max(a, start)) for a, l in jobs]
    stays = [s for s in stays if s > 0]
    return sum(stays) / len(stays) if stays else 0.0
