# RULE: correct
def plan(due, on_missed):
    """Which due slots to enqueue (run) and which to record as skipped, by the schedule's policy."""
    from course.errors import InvalidArgument
    policies = {
        "catch_up": lambda d: (d, []),
        "skip": lambda d: (d[len(d) - 1:], d[:max(len(d) - 1, 0)]),
    }
    if on_missed not in policies:
        raise InvalidArgument(f"no such policy: {on_missed!r}")
    run, skip = policies[on_missed](list(due))
    return scheduler.Plan(run=run, skip=skip)
