# wrong | whole-workers (returns a float)
def workers_for(arrival_rate, service_time, target_wait):
    c = arrival_rate * service_time // 1 + 1
    while erlang_c(arrival_rate, service_time, int(c)).mean_wait > target_wait:
        c += 1
    return c
