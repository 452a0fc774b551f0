# correct
import itertools
def workers_for(arrival_rate, service_time, target_wait):
    for c in itertools.count(1):
        if c <= arrival_rate * service_time:
            continue
        if not erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
            return c
