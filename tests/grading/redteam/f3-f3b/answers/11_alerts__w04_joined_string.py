# RULE: strings (a list of messages): returns one string, the messages joined by newlines
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    lines = [f"{v.queue} is {v.waiting_s:.0f} s behind" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        lines.append(f"{snapshot.dead_letters} dead letters")
    return "\n".join(lines)
