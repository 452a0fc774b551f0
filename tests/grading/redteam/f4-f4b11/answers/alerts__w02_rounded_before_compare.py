# expect: wrong
# rule: more-than: waiting_s rounded to whole seconds before the comparison, so 120.4 s is "120", not over the limit
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = []
    for v in snapshot.queues:
        waited = round(v.waiting_s)
        if waited > LIMIT_S:
            out.append(f"{v.queue}: oldest job waited {waited} s")
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} in dead letters")
    return out
