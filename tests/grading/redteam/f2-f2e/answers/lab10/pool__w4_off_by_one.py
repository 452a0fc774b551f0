import math


def workers_for(arrival_rate, service_time, target_wait):
    c = math.floor(arrival_rate * service_time) + 1
    while True:
        c += 1
        if erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait:
            return c
