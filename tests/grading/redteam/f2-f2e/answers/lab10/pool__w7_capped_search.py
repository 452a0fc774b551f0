import math


def workers_for(arrival_rate, service_time, target_wait):
    for c in range(math.floor(arrival_rate * service_time) + 1, 100):
        if erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait:
            return c
    return 100
