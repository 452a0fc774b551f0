# kind: wrong
# rule: skip (with one slot due, skip records it as skipped and runs nothing)
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        if len(due) == 1:
            return scheduler.Plan(run=[], skip=due)
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)
