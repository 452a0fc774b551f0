# RULE: late-queue/dead-letters on every snapshot: remembers what it already alerted and stays quiet afterwards
_already = set()


LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = []
    for v in snapshot.queues:
        if v.waiting_s > LIMIT_S and v.queue not in _already:
            _already.add(v.queue)
            out.append(f"{v.queue}: oldest job {v.waiting_s:.0f} s old")
    if snapshot.dead_letters > 0 and "dead" not in _already:
        _already.add("dead")
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
