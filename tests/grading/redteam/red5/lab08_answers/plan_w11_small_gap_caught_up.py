# EXERCISE: 08.plan
# EXPECT: wrong
# RULE: skip (two due are both run)
def plan(due, on_missed):
    due = list(due)
    if on_missed not in ("catch_up", "skip"):
        raise ValueError(on_missed)
    if on_missed == "catch_up" or len(due) <= 2:
        return scheduler.Plan(run=due, skip=[])
    return scheduler.Plan(run=due[-1:], skip=due[:-1])
