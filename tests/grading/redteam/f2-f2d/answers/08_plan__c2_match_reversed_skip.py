# RULE: correct
def plan(due, on_missed):
    """Which due slots to enqueue (run) and which to record as skipped, by the schedule's policy."""
    slots = sorted(due)
    match on_missed:
        case "catch_up":
            return scheduler.Plan(slots, [])
        case "skip":
            if not slots:
                return scheduler.Plan([], [])
            *older, latest = slots
            return scheduler.Plan([latest], list(reversed(older)))
        case _:
            raise ValueError(f"unknown on_missed policy {on_missed!r}")
