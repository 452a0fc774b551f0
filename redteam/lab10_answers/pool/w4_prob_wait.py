# expect: wrong
# rule: fewest-meeting-target (compares the chance of waiting with the target, not the mean wait)
import math
from course.programs.queueing_theory import erlang_c

def workers_for(arrival_rate, service_time, target_wait):
    c = math.floor(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, c).probability_of_waiting > target_wait:
        c += 1
    return c
