# RULE: policy: runs only the latest slot whatever the policy
def tick(conn, now):
    """Enqueue each due slot of each schedule exactly once across all schedulers; the new jobs' ids."""
    enqueued = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), 'skip')
        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') ON CONFLICT DO NOTHING", [schedule.task, slot])
        for slot in decision.run:
            with conn.transaction():
                if conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') ON CONFLICT DO NOTHING RETURNING slot", [schedule.task, slot]).fetchone():
                    job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                    conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s", [job_id, schedule.task, slot])
                    enqueued.append(job_id)
    return enqueued
