# expect: wrong
# rule: dead-letters: alerts only when the dead-letter count grew since the previous call (state kept between calls); a table that still holds dead jobs stops alerting
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


_last_dead = 0


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    global _last_dead
    out = [f"{v.queue}: oldest job {v.waiting_s:.0f} s" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > _last_dead:
        out.append(f"{snapshot.dead_letters} jobs in the dead-letter table")
    _last_dead = snapshot.dead_letters
    return out
