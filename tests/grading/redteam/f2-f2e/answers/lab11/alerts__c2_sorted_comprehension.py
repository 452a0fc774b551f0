LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    late = sorted((v for v in snapshot.queues if not v.waiting_s <= LIMIT_S), key=lambda v: v.queue)
    dead = [f"dead letters: {snapshot.dead_letters}"] if snapshot.dead_letters else []
    return [f"{v.queue} is late by {v.waiting_s - LIMIT_S:.1f} s" for v in late] + dead
