LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    out = []
    if any(v.waiting_s > LIMIT_S for v in snapshot.queues):
        out.append("a queue's oldest job is over 2 minutes old")
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
