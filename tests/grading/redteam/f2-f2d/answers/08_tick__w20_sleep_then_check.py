# RULE: claim-then-enqueue: a random sleep to spread schedulers, then SELECT-then-INSERT
def tick(conn, now):
    """Enqueue each due slot of each schedule exactly once across all schedulers; the new jobs' ids."""
    import random as _random, time as _time
    _time.sleep(_random.uniform(0, 0.3))
    enqueued = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') ON CONFLICT DO NOTHING", [schedule.task, slot])
        for slot in decision.run:
            if conn.execute("SELECT 1 FROM schedule_runs WHERE task = %s AND slot = %s", [schedule.task, slot]).fetchone():
                continue
            with conn.transaction():
                job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                conn.execute("INSERT INTO schedule_runs (task, slot, outcome, job_id) VALUES (%s, %s, 'enqueued', %s) ON CONFLICT DO NOTHING", [schedule.task, slot, job_id])
            enqueued.append(job_id)
    return enqueued
