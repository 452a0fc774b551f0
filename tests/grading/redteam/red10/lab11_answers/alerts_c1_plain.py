# correct
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    messages = []
    for view in snapshot.queues:
        if view.waiting_s > LIMIT_S:
            messages.append(f"queue {view.queue} is late: oldest job waited {view.waiting_s:.0f} s")
    if snapshot.dead_letters > 0:
        messages.append(f"{snapshot.dead_letters} jobs in the dead-letter table")
    return messages
