# RULE: never-lost: the run slot is in skip too
def plan(due, on_missed):
    """Which due slots to enqueue (run) and which to record as skipped, by the schedule's policy."""
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due)
    raise ValueError(on_missed)
