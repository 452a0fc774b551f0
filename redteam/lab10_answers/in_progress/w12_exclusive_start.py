# expect: wrong
# rule: from-start (drops the jobs that arrived before start instead of counting them from start)
def average_in_system(jobs, start, end):
    area = 0.0
    for arrived, left in jobs:
        if arrived >= start:
            area += max(0.0, min(left, end) - arrived)
    return area / (end - start)
