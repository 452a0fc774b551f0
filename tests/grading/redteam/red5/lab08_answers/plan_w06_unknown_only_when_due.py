# EXERCISE: 08.plan
# EXPECT: wrong
# RULE: unknown-policy (whatever is due)
def plan(due, on_missed):
    due = list(due)
    if not due:
        return scheduler.Plan(run=[], skip=[])
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(f"unknown policy {on_missed!r}")
