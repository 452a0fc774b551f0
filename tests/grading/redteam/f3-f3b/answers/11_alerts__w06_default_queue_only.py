# RULE: late-queue (any queue): looks only at the default queue
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = []
    view = snapshot.queue("default")
    if view.waiting_s > LIMIT_S:
        out.append(f"default: oldest job {view.waiting_s:.0f} s old")
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
