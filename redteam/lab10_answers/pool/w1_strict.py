# expect: wrong
# rule: met-exactly (strictly below the target)
import math
from course.programs.queueing_theory import erlang_c

def workers_for(arrival_rate, service_time, target_wait):
    c = math.floor(arrival_rate * service_time) + 1
    while not erlang_c(arrival_rate, service_time, c).mean_wait < target_wait:
        c += 1
    return c
