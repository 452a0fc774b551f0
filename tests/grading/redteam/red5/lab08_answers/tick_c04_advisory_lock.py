# EXERCISE: 08.tick
# EXPECT: correct
# RULE: correct (advisory lock, then check-then-insert under it)
def tick(conn, now):
    out = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') "
                         "ON CONFLICT DO NOTHING", (schedule.task, slot))
        for slot in decision.run:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (schedule.task,))
                if conn.execute("SELECT 1 FROM schedule_runs WHERE task = %s AND slot = %s", (schedule.task, slot)).fetchone():
                    continue
                job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                conn.execute("INSERT INTO schedule_runs (task, slot, outcome, job_id) VALUES (%s, %s, 'enqueued', %s)",
                             (schedule.task, slot, job_id))
                out.append(job_id)
    return out
