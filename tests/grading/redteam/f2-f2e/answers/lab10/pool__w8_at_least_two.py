import math


def workers_for(arrival_rate, service_time, target_wait):
    c = max(2, math.floor(arrival_rate * service_time) + 1)   # never fewer than two workers
    while erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
        c += 1
    return c
