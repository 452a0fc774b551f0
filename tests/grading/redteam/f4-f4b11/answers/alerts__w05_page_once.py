# expect: wrong
# rule: strings / late-queue: remembers what it already alerted (module-level set) and does not repeat it - correct only on the first call for a snapshot's queue
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


_already_paged = set()


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = []
    for v in snapshot.queues:
        if v.waiting_s > LIMIT_S and v.queue not in _already_paged:
            _already_paged.add(v.queue)
            out.append(f"{v.queue}: oldest job {v.waiting_s:.0f} s")
    if snapshot.dead_letters > 0 and "dead" not in _already_paged:
        _already_paged.add("dead")
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
