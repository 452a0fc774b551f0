# wrong | no-others / dead-letters (dead tuples taken for dead letters)
LIMIT_S = 120


def alerts(snapshot):
    out = [f"{v.queue} is late ({v.waiting_s:.0f} s)" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    dead = snapshot.dead_letters + snapshot.dead_tuples
    if dead > 0:
        out.append(f"{dead} dead jobs")
    return out
