import math


def workers_for(arrival_rate, service_time, target_wait):
    def ok(c):
        return erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait
    low = math.floor(arrival_rate * service_time) + 1   # fewest with rho < 1
    if ok(low):
        return low
    high = low * 2
    while not ok(high):
        low, high = high, high * 2
    while high - low > 1:          # ok(high), not ok(low)
        mid = (low + high) // 2
        if ok(mid):
            high = mid
        else:
            low = mid
    return int(high)
