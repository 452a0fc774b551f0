# EXERCISE: 08.tick
# EXPECT: correct
# RULE: correct (all of a schedule's run slots in one transaction)
def tick(conn, now):
    result = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        scheduler.skip_slots(conn, schedule, decision.skip)
        with conn.transaction():
            for slot in decision.run:
                row = conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
                                   "ON CONFLICT DO NOTHING RETURNING slot", [schedule.task, slot]).fetchone()
                if row is None:
                    continue
                job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s",
                             [job_id, schedule.task, slot])
                result.append(job_id)
    return result
