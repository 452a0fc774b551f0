# expect: correct
# rule: correct (arguable: Erlang C written out by hand, the formula of the notebook; float rounding may differ)
import math
def _wait(lam, s, c):
    a = lam * s
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    rho = a / c
    pw = b / (1 - rho * (1 - b))
    return pw * s / (c - a)
def workers_for(arrival_rate, service_time, target_wait):
    c = math.floor(arrival_rate * service_time) + 1
    while _wait(arrival_rate, service_time, c) > target_wait:
        c += 1
    return c
