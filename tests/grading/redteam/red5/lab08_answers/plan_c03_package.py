# EXERCISE: 08.plan
# EXPECT: correct
# RULE: correct (the package's plan)
def plan(due, on_missed):
    return scheduler.plan(due, on_missed)
