# RULE: more-than: rounds the wait first, so 120.4 s is "not over 120"
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    messages = [f"queue {v.queue}: oldest job waiting {round(v.waiting_s)} s"
                for v in snapshot.queues if round(v.waiting_s) > LIMIT_S]
    if snapshot.dead_letters > 0:
        messages.append(f"{snapshot.dead_letters} dead letters")
    return messages
