# wrong | fewest-meeting-target (search capped at 100 workers)
def workers_for(arrival_rate, service_time, target_wait):
    for c in range(1, 101):
        if c > arrival_rate * service_time and erlang_c(arrival_rate, service_time, c).mean_wait <= target_wait:
            return c
    return 100
