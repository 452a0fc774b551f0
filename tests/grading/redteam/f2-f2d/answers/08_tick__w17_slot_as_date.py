# RULE: its-job: the slot in the payload as a date only (str(slot.date())), not job_payload
def tick(conn, now):
    """Enqueue each due slot of each schedule exactly once across all schedulers; the new jobs' ids."""
    enqueued = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') ON CONFLICT DO NOTHING", [schedule.task, slot])
        for slot in decision.run:
            with conn.transaction():
                if conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') ON CONFLICT DO NOTHING RETURNING slot", [schedule.task, slot]).fetchone():
                    job_id = queue.enqueue(conn, schedule.job_type, {**schedule.payload, "slot": str(slot.date())}, queue=schedule.queue)
                    conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s", [job_id, schedule.task, slot])
                    enqueued.append(job_id)
    return enqueued
