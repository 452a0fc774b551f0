# wrong | strings (one joined string, not a list)
LIMIT_S = 120


def alerts(snapshot):
    out = [f"{v.queue} is late ({v.waiting_s:.0f} s)" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return "\n".join(out)
