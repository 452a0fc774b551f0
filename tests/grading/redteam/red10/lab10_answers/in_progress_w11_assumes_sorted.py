# wrong | outside (stops at the first job after the window: assumes sorted input)
def average_in_system(jobs, start, end):
    total = 0.0
    for arrived, left in jobs:
        if arrived >= end:
            break
        total += max(0.0, min(left, end) - max(arrived, start))
    return total / (end - start)
