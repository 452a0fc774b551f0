# wrong | late-queue (message does not name the queue)
LIMIT_S = 120


def alerts(snapshot):
    out = [f"a queue is late: oldest job {v.waiting_s:.0f} s" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
