# RULE: unknown-policy: assert (AssertionError), not ValueError
def plan(due, on_missed):
    """Which due slots to enqueue (run) and which to record as skipped, by the schedule's policy."""
    assert on_missed in ("catch_up", "skip"), on_missed
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    return scheduler.Plan(run=due[-1:], skip=due[:-1])
