# RULE: catch-up: order lost through a set
def plan(due, on_missed):
    """Which due slots to enqueue (run) and which to record as skipped, by the schedule's policy."""
    due = list(set(due))
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        latest = max(due) if due else None
        return scheduler.Plan(run=[latest] if due else [], skip=[s for s in due if s != latest])
    raise ValueError(on_missed)
