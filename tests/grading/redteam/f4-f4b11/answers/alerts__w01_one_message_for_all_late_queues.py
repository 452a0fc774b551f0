# expect: wrong
# rule: late-queue: "a queue ... one message, naming the queue" - all late queues folded into ONE message
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    out = []
    late = [v.queue for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if late:
        out.append("queues over 2 min: " + ", ".join(late))
    if snapshot.dead_letters > 0:
        out.append(f"{snapshot.dead_letters} dead letters")
    return out
