LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    messages = []
    for view in snapshot.queues:
        if view.waiting_s > LIMIT_S:
            messages.append(f"queue {view.queue!r}: oldest job waiting {view.waiting_s:.0f} s (limit {LIMIT_S} s)")
    if snapshot.dead_letters > 0:
        messages.append(f"{snapshot.dead_letters} job(s) in the dead-letter table")
    return messages
