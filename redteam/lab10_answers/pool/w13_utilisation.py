# expect: wrong
# rule: fewest-meeting-target (a utilisation ceiling of 85 % instead of the wait)
import math
from course.programs.queueing_theory import erlang_c

def workers_for(arrival_rate, service_time, target_wait):
    return max(1, math.ceil(arrival_rate * service_time / 0.85))
