# RULE: correct
def tick(conn, now):
    """Enqueue each due slot of each schedule exactly once across all schedulers; the new jobs' ids."""
    new_ids = set()
    for schedule in reversed(scheduler.schedules(conn)):
        due = scheduler.due_slots(conn, schedule, now)
        p = scheduler.plan(due, schedule.on_missed)
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') ON CONFLICT DO NOTHING", [(schedule.task, s) for s in p.skip])
            for slot in p.run:
                with conn.transaction():
                    cur.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') ON CONFLICT DO NOTHING RETURNING slot", (schedule.task, slot))
                    if cur.rowcount != 1:
                        continue
                    job = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                    cur.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s", (job, schedule.task, slot))
                    new_ids.add(job)
    return sorted(new_ids, reverse=True)
