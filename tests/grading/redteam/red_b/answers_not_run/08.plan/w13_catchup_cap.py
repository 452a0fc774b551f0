# kind: wrong
# rule: catch-up / never-lost (catch_up caps at 10 slots, the rest silently dropped)
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due[:10], skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)
