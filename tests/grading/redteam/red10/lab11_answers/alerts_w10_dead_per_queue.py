# wrong | dead-letters (one message per queue, not one)
LIMIT_S = 120


def alerts(snapshot):
    out = []
    for v in snapshot.queues:
        if v.waiting_s > LIMIT_S:
            out.append(f"{v.queue} is late ({v.waiting_s:.0f} s)")
        if snapshot.dead_letters > 0:
            out.append(f"{snapshot.dead_letters} dead letters ({v.queue})")
    return out
