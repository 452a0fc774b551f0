# kind: correct
# rule: correct (a loop over the slots, enumerate)
def plan(due, on_missed):
    if on_missed != "catch_up" and on_missed != "skip":
        raise ValueError("unknown policy: " + repr(on_missed))
    due = list(due)
    run, skip = [], []
    for i, slot in enumerate(due):
        if on_missed == "catch_up" or i == len(due) - 1:
            run.append(slot)
        else:
            skip.append(slot)
    return scheduler.Plan(run, skip)
