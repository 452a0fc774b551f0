# EXERCISE: 08.tick
# EXPECT: wrong
# RULE: decided-once (a unique_key on the job, recorded afterwards)
def tick(conn, now):
    enqueued = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') "
                         "ON CONFLICT DO NOTHING", [schedule.task, slot])
        for slot in decision.run:
            job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot),
                                   queue=schedule.queue, unique_key=f"{schedule.task}@{slot.isoformat()}")
            if job_id is not None:
                conn.execute("INSERT INTO schedule_runs (task, slot, outcome, job_id) VALUES (%s, %s, 'enqueued', %s) "
                             "ON CONFLICT DO NOTHING", [schedule.task, slot, job_id])
                enqueued.append(job_id)
    return enqueued
