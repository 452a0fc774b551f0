# expect: wrong
# rule: fewest-meeting-target (adversarial: searches at most 100 workers; the demo's 47 is in range)
import math
from course.programs.queueing_theory import erlang_c

def workers_for(arrival_rate, service_time, target_wait):
    for c in range(math.floor(arrival_rate * service_time) + 1, 101):
        if erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait:
            return c
    return 100
