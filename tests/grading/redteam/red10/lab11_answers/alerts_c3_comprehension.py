# correct
LIMIT_S = 120


def alerts(snapshot):
    late = [f"{v.queue!r}: {v.waiting_s - LIMIT_S:.1f} s over the limit" for v in snapshot.queues if not v.waiting_s <= LIMIT_S]
    dead = [] if not snapshot.dead_letters else [f"dead letters: {snapshot.dead_letters:,}"]
    return late + dead
