# kind: wrong
# rule: returns a tuple, not scheduler.Plan
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return due, []
    if on_missed == "skip":
        return due[-1:], due[:-1]
    raise ValueError(on_missed)
