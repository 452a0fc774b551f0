# RULE: correct
def tick(conn, now):
    """Enqueue each due slot of each schedule exactly once across all schedulers; the new jobs' ids."""
    out = []
    for schedule in scheduler.schedules(conn):
        todo = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        if todo.skip:
            conn.execute(
                "INSERT INTO schedule_runs AS r (task, slot, outcome) "
                "SELECT %(task)s, s, 'skipped' FROM unnest(%(slots)s::timestamptz[]) AS t(s) "
                "ON CONFLICT (task, slot) DO NOTHING",
                {"task": schedule.task, "slots": list(todo.skip)})
        for slot in sorted(todo.run):
            with conn.transaction():
                won = conn.execute(
                    "WITH claim AS (INSERT INTO schedule_runs (task, slot, outcome) VALUES (%(t)s, %(s)s, 'enqueued') "
                    "ON CONFLICT (task, slot) DO NOTHING RETURNING task, slot) SELECT count(*) FROM claim",
                    {"t": schedule.task, "s": slot}).fetchone()[0]
                if won == 1:
                    new_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                    conn.execute("UPDATE schedule_runs SET job_id = %(j)s WHERE (task, slot) = (%(t)s, %(s)s)",
                                 {"j": new_id, "t": schedule.task, "s": slot})
                    out.append(new_id)
    return out
