# kind: wrong
# rule: unknown-policy (a typo's case is forgiven: 'Skip', 'CATCH_UP ' pick a policy)
def plan(due, on_missed):
    due = list(due)
    policy = str(on_missed).strip().lower()
    if policy == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if policy == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)
