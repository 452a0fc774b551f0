import math


def average_in_system(jobs, start, end):
    window = end - start
    parts = []
    for arrived, left in jobs:
        if left <= start or arrived >= end:
            continue
        parts.append(min(left, end) - max(arrived, start))
    return math.fsum(parts) / window
