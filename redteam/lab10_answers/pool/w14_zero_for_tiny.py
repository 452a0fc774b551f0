# expect: wrong
# rule: whole-workers (zero workers when the load rounds to nothing)
import math
from course.programs.queueing_theory import erlang_c

def workers_for(arrival_rate, service_time, target_wait):
    load = arrival_rate * service_time
    if load < 0.5:
        return 0
    c = math.floor(load) + 1
    while erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
        c += 1
    return c
