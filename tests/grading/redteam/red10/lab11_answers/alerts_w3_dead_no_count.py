# wrong | dead-letters (message does not say how many)
LIMIT_S = 120


def alerts(snapshot):
    out = [f"{v.queue} is late" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append("there are jobs in the dead-letter table")
    return out
