# RULE: correct
def tick(conn, now):
    """Enqueue each due slot of each schedule exactly once across all schedulers; the new jobs' ids."""
    ids = []
    for s in scheduler.schedules(conn):
        decided = scheduler.plan(scheduler.due_slots(conn, s, now), s.on_missed)
        scheduler.skip_slots(conn, s, decided.skip)
        ids += [i for i in (scheduler.enqueue_slot(conn, s, slot) for slot in decided.run) if i is not None]
    return ids
