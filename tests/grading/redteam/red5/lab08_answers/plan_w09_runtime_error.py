# EXERCISE: 08.plan
# EXPECT: wrong
# RULE: unknown-policy (not a ValueError)
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise RuntimeError(f"unknown on_missed {on_missed!r}")
