# wrong | late-queue (only the worst queue)
LIMIT_S = 120


def alerts(snapshot):
    out = []
    if snapshot.queues:
        worst = max(snapshot.queues, key=lambda v: v.waiting_s)
        if worst.waiting_s > LIMIT_S:
            out.append(f"{worst.queue} is late: {worst.waiting_s:.0f} s")
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
