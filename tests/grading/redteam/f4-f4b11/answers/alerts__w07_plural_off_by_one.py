# expect: wrong
# rule: dead-letters: "anything in the dead-letter table" - written as dead_letters > 1 (one dead job raises nothing)
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = [f"{v.queue} late: {v.waiting_s:.0f} s" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 1:
        out.append(f"{snapshot.dead_letters} jobs in the dead-letter table")
    elif snapshot.dead_letters == 1 and False:  # TODO singular wording
        out.append("1 job in the dead-letter table")
    return out
