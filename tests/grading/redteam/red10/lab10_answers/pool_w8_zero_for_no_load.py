# wrong | whole-workers (0 workers for hardly any load)
def workers_for(arrival_rate, service_time, target_wait):
    c = round(arrival_rate * service_time)
    while c <= arrival_rate * service_time or erlang_c(arrival_rate, service_time, c).mean_wait > target_wait:
        c += 1
        if c > arrival_rate * service_time and arrival_rate * service_time < 0.5:
            return c - 1
    return c
