# wrong | more-than-load (starts at ceil, = load when integer)
import math
def workers_for(arrival_rate, service_time, target_wait):
    c = max(1, math.ceil(arrival_rate * service_time))
    while True:
        try:
            if erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait:
                return c
        except Exception:
            return c
        c += 1
