# kind: wrong
# rule: unknown-policy (raises KeyError, not ValueError)
def plan(due, on_missed):
    due = list(due)
    return {"catch_up": lambda: scheduler.Plan(run=due, skip=[]),
            "skip": lambda: scheduler.Plan(run=due[-1:], skip=due[:-1])}[on_missed]()
