# EXERCISE: 08.tick
# EXPECT: wrong
# RULE: crash-safe (run slots recorded before the skipped ones)
def tick(conn, now):
    enqueued = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        for slot in decision.run:
            job_id = scheduler.enqueue_slot(conn, schedule, slot)
            if job_id is not None:
                enqueued.append(job_id)
        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') "
                         "ON CONFLICT DO NOTHING", [schedule.task, slot])
    return enqueued
