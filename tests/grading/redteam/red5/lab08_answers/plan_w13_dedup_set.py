# EXERCISE: 08.plan
# EXPECT: wrong
# RULE: catch-up (a set: order lost)
def plan(due, on_missed):
    slots = list(set(due))
    if on_missed == "catch_up":
        return scheduler.Plan(run=slots, skip=[])
    if on_missed == "skip":
        latest = max(slots) if slots else None
        return scheduler.Plan(run=[latest] if slots else [], skip=[s for s in slots if s != latest])
    raise ValueError(on_missed)
