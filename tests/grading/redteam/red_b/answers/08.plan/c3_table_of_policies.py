# kind: correct
# rule: correct (a dict of policies; a KeyError turned into ValueError)
POLICIES = {
    "catch_up": lambda slots: (slots, []),
    "skip": lambda slots: ([slots[-1]] if slots else [], slots[:-1]),
}


def plan(due, on_missed):
    try:
        policy = POLICIES[on_missed]
    except (KeyError, TypeError):
        raise ValueError(f"on_missed must be 'catch_up' or 'skip', not {on_missed!r}") from None
    run, skip = policy(list(due))
    return scheduler.Plan(run=run, skip=skip)
