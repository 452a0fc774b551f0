# kind: correct
# rule: correct (enqueue first, then insert the row with its job id; a lost race rolls the job back)
import psycopg


def tick(conn, now):
    ids = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        if decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) SELECT %s, s, 'skipped' "
                         "FROM unnest(%s::timestamptz[]) AS s ON CONFLICT (task, slot) DO NOTHING",
                         [schedule.task, list(decision.skip)])
        for slot in decision.run:
            with conn.transaction() as tx:
                job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot),
                                       queue=schedule.queue)
                won = conn.execute("INSERT INTO schedule_runs (task, slot, outcome, job_id) "
                                   "VALUES (%s, %s, 'enqueued', %s) ON CONFLICT (task, slot) DO NOTHING "
                                   "RETURNING job_id", [schedule.task, slot, job_id]).fetchone()
                if won is None:
                    raise psycopg.Rollback(tx)  # another scheduler has the slot: take the job back
                ids.append(job_id)
    return ids
