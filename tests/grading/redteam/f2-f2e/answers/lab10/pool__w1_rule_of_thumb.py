import math


def workers_for(arrival_rate, service_time, target_wait):
    return math.ceil(arrival_rate * service_time * 1.1)
