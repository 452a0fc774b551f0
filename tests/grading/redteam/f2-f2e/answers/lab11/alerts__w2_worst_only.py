LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    out = []
    if snapshot.queues:
        worst = max(snapshot.queues, key=lambda v: v.waiting_s)
        if worst.waiting_s > LIMIT_S:
            out.append(f"queue {worst.queue} is late: {worst.waiting_s:.0f} s")
    if snapshot.dead_letters:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
