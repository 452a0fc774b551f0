# correct
def average_in_system(jobs, start, end):
    width = end - start
    inside = 0
    for arrived, left in jobs:
        if left <= start or arrived >= end:
            continue
        begin = start if arrived < start else arrived
        finish = end if left > end else left
        inside += finish - begin
    return inside / width
