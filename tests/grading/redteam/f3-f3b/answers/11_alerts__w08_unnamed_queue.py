# RULE: late-queue (naming the queue): the message names a number, not the queue
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = [f"queue #{n} is late ({v.waiting_s / 60:.1f} min)"
           for n, v in enumerate(snapshot.queues, 1) if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append(f"dead letters: {snapshot.dead_letters}")
    return out
