# EXERCISE: 08.tick
# EXPECT: correct
# RULE: correct (unnest for skips; claim, enqueue, update in one block)
SKIP_MANY = """INSERT INTO schedule_runs (task, slot, outcome)
               SELECT %(task)s, s, 'skipped' FROM unnest(%(slots)s::timestamptz[]) AS s
               ON CONFLICT (task, slot) DO NOTHING"""
CLAIM = """INSERT INTO schedule_runs AS r (task, slot, outcome) VALUES (%(task)s, %(slot)s, 'enqueued')
           ON CONFLICT ON CONSTRAINT schedule_runs_pkey DO NOTHING RETURNING r.task"""

def tick(conn, now):
    new_jobs = []
    for s in scheduler.schedules(conn):
        p = scheduler.plan(scheduler.due_slots(conn, s, now), s.on_missed)
        if p.skip:
            conn.execute(SKIP_MANY, {"task": s.task, "slots": list(p.skip)})
        for slot in p.run:
            with conn.transaction():
                if not conn.execute(CLAIM, {"task": s.task, "slot": slot}).fetchall():
                    continue
                job = queue.enqueue(conn, s.job_type, scheduler.job_payload(s, slot), queue=s.queue)
                conn.execute("UPDATE schedule_runs SET job_id = %(job)s WHERE (task, slot) = (%(task)s, %(slot)s)",
                             {"job": job, "task": s.task, "slot": slot})
            new_jobs.append(job)
    return new_jobs
