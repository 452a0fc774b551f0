# EXERCISE: 08.plan
# EXPECT: wrong
# RULE: unknown-policy (defaults to catch_up)
def plan(due, on_missed):
    due = list(due)
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    return scheduler.Plan(run=due, skip=[])
