# correct
def workers_for(arrival_rate, service_time, target_wait):
    load = arrival_rate * service_time
    low = int(load)          # never enough: rho >= 1
    high = low + 1
    while queueing_theory.erlang_c(arrival_rate, service_time, high).mean_wait > target_wait:
        high = low + 2 * (high - low)
    while high - low > 1:    # low fails, high meets the target
        mid = (low + high) // 2
        if mid > load and queueing_theory.erlang_c(arrival_rate, service_time, mid).mean_wait <= target_wait:
            high = mid
        else:
            low = mid
    return high
