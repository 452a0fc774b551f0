# expect: wrong
# rule: fewest-meeting-target (mean time in system, wait + service, not the mean wait)
import math
from course.programs.queueing_theory import erlang_c

def workers_for(arrival_rate, service_time, target_wait):
    c = math.floor(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, c).mean_wait + service_time > target_wait:
        c += 1
        if c > 10_000:
            return c
    return c
