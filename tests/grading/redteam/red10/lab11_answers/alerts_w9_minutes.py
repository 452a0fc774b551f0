# wrong | late-queue (compares minutes with LIMIT_S's seconds... rounds to whole minutes)
LIMIT_S = 120


def alerts(snapshot):
    out = [f"{v.queue} is late ({v.waiting_s // 60:.0f} min)" for v in snapshot.queues
           if v.waiting_s // 60 > LIMIT_S // 60]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
