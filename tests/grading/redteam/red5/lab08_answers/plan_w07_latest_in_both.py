# EXERCISE: 08.plan
# EXPECT: wrong
# RULE: never-lost / exactly one list (latest also skipped)
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due)
    raise ValueError(on_missed)
