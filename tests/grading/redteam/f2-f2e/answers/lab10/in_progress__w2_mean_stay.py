def average_in_system(jobs, start, end):
    stays = [l - a for a, l in jobs if a < end and l > start]
    return sum(stays) / len(stays) if stays else 0.0
