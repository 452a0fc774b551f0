# RULE: correct
def tick(conn, now):
    """Enqueue each due slot of each schedule exactly once across all schedulers; the new jobs' ids."""
    ids = []
    for schedule in scheduler.schedules(conn):
        with conn.transaction():
            conn.execute("LOCK TABLE schedule_runs IN SHARE ROW EXCLUSIVE MODE")
            last = conn.execute("SELECT max(slot) FROM schedule_runs WHERE task = %s", [schedule.task]).fetchone()[0]
            due = scheduler.slots_between(schedule, last, now)
            decision = scheduler.plan(due, schedule.on_missed)
            for slot in decision.skip:
                conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped')", [schedule.task, slot])
            for slot in decision.run:
                exists = conn.execute("SELECT 1 FROM schedule_runs WHERE task = %s AND slot = %s", [schedule.task, slot]).fetchone()
                if exists:
                    continue
                job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                conn.execute("INSERT INTO schedule_runs (task, slot, outcome, job_id) VALUES (%s, %s, 'enqueued', %s)", [schedule.task, slot, job_id])
                ids.append(job_id)
    return ids
