# expect: correct
# rule: correct (doubling then bisection over the stable pools)
import math
from course.programs.queueing_theory import erlang_c

def workers_for(arrival_rate, service_time, target_wait):
    lo = math.floor(arrival_rate * service_time) + 1     # stable
    def ok(c):
        return erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait
    if ok(lo):
        return lo
    hi = lo * 2
    while not ok(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:      # ok(hi), not ok(lo)
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi
