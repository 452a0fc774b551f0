# expect: correct
# rule: correct (hint 3's final step, word for word)
import math
from course.programs.queueing_theory import erlang_c

def workers_for(arrival_rate, service_time, target_wait):
    c = math.floor(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
        c += 1
    return c
