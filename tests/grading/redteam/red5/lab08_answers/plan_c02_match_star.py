# EXERCISE: 08.plan
# EXPECT: correct
# RULE: correct (match, star unpacking)
def plan(due, on_missed):
    match on_missed:
        case "catch_up":
            return scheduler.Plan(run=[*due], skip=[])
        case "skip":
            if not due:
                return scheduler.Plan(run=[], skip=[])
            *older, latest = due
            return scheduler.Plan(run=[latest], skip=older)
        case _:
            raise ValueError(f"on_missed must be 'catch_up' or 'skip', not {on_missed!r}")
