# expect: wrong
# rule: fewest-meeting-target (lambda x S plus 10 %, ignores the target)
import math
from course.programs.queueing_theory import erlang_c

def workers_for(arrival_rate, service_time, target_wait):
    return math.ceil(arrival_rate * service_time * 1.1)
