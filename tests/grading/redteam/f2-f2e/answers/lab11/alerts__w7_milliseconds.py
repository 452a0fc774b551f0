LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    out = [f"queue {v.queue} late" for v in snapshot.queues if v.waiting_s * 1000 > LIMIT_S * 1000 * 60]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
