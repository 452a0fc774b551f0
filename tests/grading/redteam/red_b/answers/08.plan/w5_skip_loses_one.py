# kind: wrong
# rule: never-lost (off by one: the slot before the latest is in neither list)
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-2])
    raise ValueError(on_missed)
