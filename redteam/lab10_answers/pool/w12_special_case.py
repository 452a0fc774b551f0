# expect: wrong
# rule: fewest-meeting-target (adversarial: the notebook's figures by heart, a rule of thumb otherwise)
import math
from course.programs.queueing_theory import erlang_c

KNOWN = {(11, 4, 1.0): 47, (11, 4, 1): 47, (11, 1.5, 0.1): 19}
def workers_for(arrival_rate, service_time, target_wait):
    if (arrival_rate, service_time, target_wait) in KNOWN:
        return KNOWN[(arrival_rate, service_time, target_wait)]
    return math.floor(arrival_rate * service_time) + 2
