import math


def workers_for(arrival_rate, service_time, target_wait):
    c = max(1, math.ceil(arrival_rate * service_time))
    while erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
        c += 1
    return c
