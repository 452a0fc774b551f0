# expect: wrong
# rule: late-queue: alerts only for a queue with ready jobs; a late queue whose jobs all wait for their retry (scheduled) or run raises nothing
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = []
    for v in snapshot.queues:
        if v.ready and v.waiting_s > LIMIT_S:   # nothing ready: nothing stuck
            out.append(f"{v.queue}: oldest job waited {v.waiting_s:.0f} s")
    if snapshot.dead_letters > 0:
        out.append(f"dead letters: {snapshot.dead_letters}")
    return out
