# correct
LIMIT_S = 120   # StayHub: alert when the oldest job is over 2 minutes old


def alerts(snapshot):
    rules = (monitoring.OldestJobOver(LIMIT_S), monitoring.DeadLetters())
    return [alert.message for rule in rules for alert in rule.check(snapshot)]
