# EXERCISE: 08.tick
# EXPECT: wrong
# RULE: policy (every due slot run)
def tick(conn, now):
    enqueued = []
    for schedule in scheduler.schedules(conn):
        for slot in scheduler.due_slots(conn, schedule, now):
            job_id = scheduler.enqueue_slot(conn, schedule, slot)
            if job_id is not None:
                enqueued.append(job_id)
    return enqueued
