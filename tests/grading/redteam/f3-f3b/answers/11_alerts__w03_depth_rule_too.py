# RULE: no-others: also alerts on a queue over 1,000 jobs deep (depth is not lateness)
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    messages = []
    for v in snapshot.queues:
        if v.waiting_s > LIMIT_S:
            messages.append(f"{v.queue}: oldest job {v.waiting_s:.0f} s old")
        elif v.depth > 1000:
            messages.append(f"{v.queue}: {v.depth} jobs queued")
    if snapshot.dead_letters:
        messages.append(f"dead-letter table: {snapshot.dead_letters} jobs")
    return messages
