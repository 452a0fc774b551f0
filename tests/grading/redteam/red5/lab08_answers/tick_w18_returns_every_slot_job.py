# EXERCISE: 08.tick
# EXPECT: wrong
# RULE: return-ids (returns ids other schedulers enqueued)
def tick(conn, now):
    enqueued = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') "
                         "ON CONFLICT DO NOTHING", [schedule.task, slot])
        for slot in decision.run:
            scheduler.enqueue_slot(conn, schedule, slot)
            job_id = conn.execute("SELECT job_id FROM schedule_runs WHERE task = %s AND slot = %s",
                                  [schedule.task, slot]).fetchone()[0]
            if job_id is not None:
                enqueued.append(job_id)
    return enqueued
