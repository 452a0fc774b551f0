# EXERCISE: 08.plan
# EXPECT: wrong
# RULE: catch-up (off by one)
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due[:-1] if len(due) > 1 else due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)
