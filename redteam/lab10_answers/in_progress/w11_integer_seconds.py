# expect: wrong
# rule: time-average (rounds the stays to whole seconds: the demo's timestamps are whole seconds)
def average_in_system(jobs, start, end):
    area = 0
    for arrived, left in jobs:
        area += max(0, int(min(left, end)) - int(max(arrived, start)))
    return area / (end - start)
