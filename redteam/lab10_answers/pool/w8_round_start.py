# expect: wrong
# rule: fewest-meeting-target (starts at round(lambda S) + 1: skips a pool that would do when lambda S rounds up)
import math
from course.programs.queueing_theory import erlang_c

def workers_for(arrival_rate, service_time, target_wait):
    c = round(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
        c += 1
    return c
