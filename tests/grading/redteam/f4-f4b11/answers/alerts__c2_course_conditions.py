# expect: correct
# rule: correct: reuses the course's own conditions with LIMIT_S, keeps only each alert's message
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    """Alert messages for one snapshot: oldest job over LIMIT_S, anything in the dead-letter table."""
    rules = [monitoring.OldestJobOver(LIMIT_S), monitoring.DeadLetters()]
    return [alert.message for alert in monitoring.evaluate(snapshot, rules)]
