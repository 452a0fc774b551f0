# expect: wrong
# rule: dead-letters: "one message that says how many" - the message says "1 or more" whatever the count
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = [f"{v.queue}: oldest job has waited {v.waiting_s:.0f} s" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0:
        out.append("1 or more jobs in the dead-letter table: look at dead_jobs")
    return out
