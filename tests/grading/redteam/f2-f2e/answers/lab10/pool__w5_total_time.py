import math


def workers_for(arrival_rate, service_time, target_wait):
    c = math.floor(arrival_rate * service_time) + 1
    while erlang_c(arrival_rate, service_time, c).mean_wait + service_time > target_wait:
        c += 1
    return c
