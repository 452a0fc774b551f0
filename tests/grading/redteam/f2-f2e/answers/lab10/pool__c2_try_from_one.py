import itertools

from course.errors import InvalidArgument


def workers_for(arrival_rate, service_time, target_wait):
    for c in itertools.count(1):
        try:
            if erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait:
                return c
        except InvalidArgument:
            continue   # rho >= 1: cannot do
