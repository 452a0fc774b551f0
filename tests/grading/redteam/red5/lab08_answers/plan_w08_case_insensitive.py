# EXERCISE: 08.plan
# EXPECT: wrong
# RULE: unknown-policy ('CATCH_UP' accepted)
def plan(due, on_missed):
    due = list(due)
    policy = str(on_missed).strip().lower()
    if policy == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if policy == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)
