# expect: wrong
# rule: dead-letters / late-queue: returns as soon as a queue is late, so the dead-letter alert is dropped when both hold
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    late = [f"{v.queue}: waiting {v.waiting_s:.0f} s" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if late:
        return late
    if snapshot.dead_letters > 0:
        return [f"{snapshot.dead_letters} job(s) in the dead-letter table"]
    return []
