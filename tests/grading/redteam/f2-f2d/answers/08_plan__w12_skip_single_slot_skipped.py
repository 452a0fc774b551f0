# RULE: skip: a single due slot is skipped, not run (only 'missed' ones run)
def plan(due, on_missed):
    """Which due slots to enqueue (run) and which to record as skipped, by the schedule's policy."""
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        if len(due) <= 1:
            return scheduler.Plan(run=[], skip=due)
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)
