# wrong | late-queue (only the demo's queues looked at)
LIMIT_S = 120


def alerts(snapshot):
    out = []
    for name in ("default", "newsletter"):
        view = snapshot.queue(name)
        if view.waiting_s > LIMIT_S:
            out.append(f"{name} is late ({view.waiting_s:.0f} s)")
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
