# wrong | fewest-meeting-target (95th percentile, not the mean)
def workers_for(arrival_rate, service_time, target_wait):
    return queueing_theory.size_pool(arrival_rate, service_time, target_wait, percentile=0.95)
