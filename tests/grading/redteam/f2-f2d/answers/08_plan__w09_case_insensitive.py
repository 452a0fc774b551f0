# RULE: unknown-policy: 'Skip'/'CATCH_UP' accepted
def plan(due, on_missed):
    """Which due slots to enqueue (run) and which to record as skipped, by the schedule's policy."""
    due = list(due)
    policy = str(on_missed).strip().lower().replace("-", "_")
    if policy == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if policy == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)
