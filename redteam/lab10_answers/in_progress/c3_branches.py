# expect: correct
# rule: correct (case by case, written out)
def average_in_system(jobs, start, end):
    width = end - start
    total = 0.0
    for arrived, left in jobs:
        if left <= start or arrived >= end:
            continue                      # entirely outside
        began = start if arrived < start else arrived
        ended = end if left > end else left
        total += ended - began
    return total / width
