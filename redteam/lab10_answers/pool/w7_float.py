# expect: wrong
# rule: whole-workers (a float: counts from lambda x S + 1 without flooring)
import math
from course.programs.queueing_theory import erlang_c

def workers_for(arrival_rate, service_time, target_wait):
    c = float(math.floor(arrival_rate * service_time) + 1)
    while erlang_c(arrival_rate, service_time, int(c)).mean_wait > target_wait:
        c += 1
    return c
