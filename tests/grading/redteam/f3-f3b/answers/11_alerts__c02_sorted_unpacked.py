# RULE: correct
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    late = [f"{v.queue} late: {v.waiting_s:,.1f} s > {LIMIT_S} s"
            for v in sorted(snapshot.queues, key=lambda v: v.queue) if not v.waiting_s <= LIMIT_S]
    dead = [f"dead letters: {snapshot.dead_letters}"] * (snapshot.dead_letters > 0)
    return [*late, *dead]
