# expect: wrong
# rule: late-queue: looks only at the demo's queues through snapshot.queue('default') / ('newsletter'); any other queue is never alerted
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = []
    for name in ("default", "newsletter"):
        view = snapshot.queue(name)
        if view.waiting_s > LIMIT_S:
            out.append(f"{name}: oldest job has waited {view.waiting_s:.0f} s")
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} job(s) in the dead-letter table")
    return out
