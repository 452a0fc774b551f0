# kind: correct
# rule: correct (explicit BEGIN/COMMIT per slot, the row and its job id written in one INSERT ... from a CTE)
def tick(conn, now):
    out = []
    for s in scheduler.schedules(conn):
        p = scheduler.plan(scheduler.due_slots(conn, s, now), s.on_missed)
        for slot in p.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') "
                         "ON CONFLICT DO NOTHING", (s.task, slot))
        for slot in p.run:
            conn.execute("BEGIN")
            try:
                claimed = conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
                                       "ON CONFLICT DO NOTHING RETURNING task", (s.task, slot)).fetchone()
                if claimed:
                    job = queue.enqueue(conn, s.job_type, scheduler.job_payload(s, slot), queue=s.queue)
                    conn.execute("UPDATE schedule_runs SET job_id = %s WHERE (task, slot) = (%s, %s)", (job, s.task, slot))
                    out.append(job)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
    return out
