# RULE: claim-then-enqueue: SELECT then INSERT (race: a slot enqueued twice)
def tick(conn, now):
    """Enqueue each due slot of each schedule exactly once across all schedulers; the new jobs' ids."""
    enqueued = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') ON CONFLICT DO NOTHING", [schedule.task, slot])
        for slot in decision.run:
            with conn.transaction():
                taken = conn.execute("SELECT 1 FROM schedule_runs WHERE task = %s AND slot = %s", [schedule.task, slot]).fetchone()
                if taken:
                    continue
                job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                conn.execute("INSERT INTO schedule_runs (task, slot, outcome, job_id) VALUES (%s, %s, 'enqueued', %s) ON CONFLICT DO NOTHING", [schedule.task, slot, job_id])
                enqueued.append(job_id)
    return enqueued
