# wrong | dead-letters (no alert at all when the queues are empty)
LIMIT_S = 120


def alerts(snapshot):
    if snapshot.depth == 0:
        return []
    out = [f"{v.queue} is late ({v.waiting_s:.0f} s)" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
