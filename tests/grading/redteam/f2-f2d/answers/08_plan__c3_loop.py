# RULE: correct
def plan(due, on_missed):
    """Which due slots to enqueue (run) and which to record as skipped, by the schedule's policy."""
    if on_missed not in ("catch_up", "skip"):
        raise ValueError("on_missed must be catch_up or skip, not %r" % (on_missed,))
    run, skip = [], []
    slots = list(due)
    for i, slot in enumerate(slots):
        if on_missed == "catch_up" or i == len(slots) - 1:
            run.append(slot)
        else:
            skip.append(slot)
    return scheduler.Plan(run=run, skip=skip)
