# expect: correct
# rule: correct (from one worker up, skipping the unstable pools by their error)
import math
from course.programs.queueing_theory import erlang_c

from course.errors import InvalidArgument
def workers_for(arrival_rate, service_time, target_wait):
    c = 1
    while True:
        try:
            if erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait:
                return c
        except InvalidArgument:
            pass
        c += 1
