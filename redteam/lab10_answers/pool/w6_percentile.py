# expect: wrong
# rule: fewest-meeting-target (the 95th percentile, not the mean)
from course.programs import queueing_theory
def workers_for(arrival_rate, service_time, target_wait):
    return queueing_theory.size_pool(arrival_rate, service_time, target_wait, percentile=0.95)
