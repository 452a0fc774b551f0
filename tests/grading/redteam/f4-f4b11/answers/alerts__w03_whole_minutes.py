# expect: wrong
# rule: late-queue / more-than: compares whole minutes (waiting_s // 60 > LIMIT_S // 60): 121..179 s gives no alert
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = []
    for v in snapshot.queues:
        minutes = int(v.waiting_s // 60)
        if minutes > LIMIT_S // 60:
            out.append(f"{v.queue} is {minutes} min behind")
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} job(s) dead")
    return out
