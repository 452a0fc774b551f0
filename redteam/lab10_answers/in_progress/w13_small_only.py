# expect: wrong
# rule: time-average (adversarial: exact on a handful of jobs, counts a sample of 50 on a big list)
import random
def average_in_system(jobs, start, end):
    jobs = list(jobs)
    if len(jobs) > 50:
        sample = random.Random(0).sample(jobs, 50)
        scale = len(jobs) / 50
    else:
        sample, scale = jobs, 1
    area = sum(max(0.0, min(l, end) - max(a, start)) for a, l in sample)
    return scale * area / (end - start)
