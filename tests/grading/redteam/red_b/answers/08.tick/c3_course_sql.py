# kind: correct
# rule: correct (the course's own statements through sql.query, a helper per slot, schedules in reverse)
def _run_slot(conn, schedule, slot):
    key = {"task": schedule.task, "slot": slot}
    with conn.transaction():
        if conn.execute(sql.query("scheduler", "claim_slot"), key).fetchone() is None:
            return None
        job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
        conn.execute(sql.query("scheduler", "set_job"), {**key, "job_id": job_id})
        return job_id


def tick(conn, now):
    new_ids = []
    for schedule in reversed(scheduler.schedules(conn)):
        due = scheduler.due_slots(conn, schedule, now)
        decision = scheduler.plan(due, schedule.on_missed)
        for slot in decision.skip:
            conn.execute(sql.query("scheduler", "skip_slot"), {"task": schedule.task, "slot": slot})
        new_ids += [job_id for job_id in (_run_slot(conn, schedule, s) for s in decision.run) if job_id is not None]
    return new_ids
