# EXERCISE: 08.tick
# EXPECT: correct
# RULE: correct (skip_slots and enqueue_slot)
def tick(conn, now):
    ids = []
    for schedule in scheduler.schedules(conn):
        due = scheduler.due_slots(conn, schedule, now)
        decision = scheduler.plan(due, schedule.on_missed)
        scheduler.skip_slots(conn, schedule, decision.skip)
        ids += [job_id for job_id in (scheduler.enqueue_slot(conn, schedule, s) for s in decision.run) if job_id]
    return ids
