# kind: correct
# rule: correct (match, validation first, skip order reversed: free)
def plan(due, on_missed):
    if on_missed not in ("catch_up", "skip"):
        raise ValueError(f"unknown on_missed policy {on_missed!r}")
    slots = list(due)
    match on_missed:
        case "catch_up":
            return scheduler.Plan(run=slots, skip=[])
        case "skip":
            if not slots:
                return scheduler.Plan(run=[], skip=[])
            *older, latest = slots
            return scheduler.Plan(run=[latest], skip=list(reversed(older)))
