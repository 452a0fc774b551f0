# EXERCISE: 08.plan
# EXPECT: correct
# RULE: correct (a dict of policies, skip reversed)
POLICIES = {
    "catch_up": lambda slots: (slots, []),
    "skip": lambda slots: (slots[len(slots) - 1:], list(reversed(slots[:len(slots) - 1]))),
}

def plan(due, on_missed):
    try:
        policy = POLICIES[on_missed]
    except (KeyError, TypeError):
        raise ValueError(f"no such missed-run policy: {on_missed!r}") from None
    run, skip = policy(list(due))
    return scheduler.Plan(run=run, skip=skip)
