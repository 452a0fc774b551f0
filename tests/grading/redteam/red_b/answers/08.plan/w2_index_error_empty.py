# kind: wrong
# rule: nothing-due (skip with nothing due: IndexError)
def plan(due, on_missed):
    if on_missed == "catch_up":
        return scheduler.Plan(run=list(due), skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=[due[-1]], skip=list(due[:-1]))
    raise ValueError(on_missed)
