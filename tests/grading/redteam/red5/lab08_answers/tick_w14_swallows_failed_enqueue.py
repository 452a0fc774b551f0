# EXERCISE: 08.tick
# EXPECT: wrong
# RULE: claim-then-enqueue (a failed enqueue swallowed: the slot is lost behind later ones)
def tick(conn, now):
    enqueued = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') "
                         "ON CONFLICT DO NOTHING", [schedule.task, slot])
        for slot in decision.run:
            try:
                job_id = scheduler.enqueue_slot(conn, schedule, slot)
            except Exception as error:
                print(f"tick: {schedule.task} {slot}: {error}")
                continue
            if job_id is not None:
                enqueued.append(job_id)
    return enqueued
