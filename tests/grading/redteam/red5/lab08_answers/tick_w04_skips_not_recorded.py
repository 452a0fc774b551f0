# EXERCISE: 08.tick
# EXPECT: wrong
# RULE: record-skipped
def tick(conn, now):
    enqueued = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        for slot in decision.run:
            job_id = scheduler.enqueue_slot(conn, schedule, slot)
            if job_id is not None:
                enqueued.append(job_id)
    return enqueued
