# kind: wrong
# rule: skip / never-lost (skip runs the latest and records nothing)
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=[])
    raise ValueError(on_missed)
