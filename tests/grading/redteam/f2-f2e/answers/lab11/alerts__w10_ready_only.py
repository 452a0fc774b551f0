LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    # a queue with jobs ready to run whose oldest is late
    out = [f"queue {v.queue} late" for v in snapshot.queues if v.ready and v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
