# expect: correct
# rule: correct (math.fsum over a generator, clip with sorted())
import math
def average_in_system(jobs, start, end):
    def inside(a, l):
        lo, hi = sorted((start, a))[1], sorted((end, l))[0]
        return hi - lo if hi > lo else 0.0
    return math.fsum(inside(a, l) for a, l in jobs) / (end - start)
