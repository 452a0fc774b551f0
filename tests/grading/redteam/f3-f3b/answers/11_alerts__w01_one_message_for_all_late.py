# RULE: late-queue (one message per queue): one message listing every late queue
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    messages = []
    late = [v.queue for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if late:
        messages.append(f"oldest job over {LIMIT_S} s in: {', '.join(late)}")
    if snapshot.dead_letters > 0:
        messages.append(f"{snapshot.dead_letters} jobs in the dead-letter table")
    return messages
