# expect: correct
# rule: correct: hint 3's final step word for word
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    messages = [f"{v.queue}: oldest job has waited {v.waiting_s:.0f} s" for v in snapshot.queues if v.waiting_s > LIMIT_S]
    if snapshot.dead_letters > 0: messages.append(f"{snapshot.dead_letters} job(s) in the dead-letter table")
    return messages
