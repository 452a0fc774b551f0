# expect: correct
# rule: correct (next() over itertools.count from rho < 1)
import itertools
import math
from course.programs.queueing_theory import erlang_c

def workers_for(arrival_rate, service_time, target_wait):
    load = arrival_rate * service_time
    first = int(load) + 1
    return next(c for c in itertools.count(first)
                if erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait)
