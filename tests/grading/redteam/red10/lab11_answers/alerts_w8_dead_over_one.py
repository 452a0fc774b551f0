# wrong | dead-letters (one dead letter does not alert)
LIMIT_S = 120


def alerts(snapshot):
    out = [f"{v.queue} is late ({v.waiting_s:.0f} s)" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 1:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
