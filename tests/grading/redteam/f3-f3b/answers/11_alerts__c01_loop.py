# RULE: correct
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    found = []
    for view in snapshot.queues:
        if view.waiting_s > LIMIT_S:
            found.append(f"ALERT queue {view.queue!r}: oldest job has waited {view.waiting_s / 60:.1f} minutes")
    if snapshot.dead_letters > 0:
        found.append(f"ALERT {snapshot.dead_letters} job(s) in the dead-letter table")
    return found
