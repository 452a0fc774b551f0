# RULE: dead-letters (anything): alerts only when more than one job is dead
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = [f"{v.queue}: oldest waiting {v.waiting_s:.0f} s" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 1:
        out.append(f"{snapshot.dead_letters} jobs dead-lettered")
    return out
