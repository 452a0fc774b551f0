# expect: wrong
# rule: more-than: "more than 120 s" read as 121 s or more (>= LIMIT_S + 1), so 120.5 s raises nothing
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = [f"{v.queue}: {v.waiting_s:.0f} s behind" for v in snapshot.queues if v.waiting_s >= LIMIT_S + 1]
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} job(s) dead-lettered")
    return out
