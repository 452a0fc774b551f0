P, T = "08.plan", "08.tick"
TICK_HEAD = '''
def tick(conn, now):
    enqueued = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
'''
def tick(body):
    return TICK_HEAD + body
SKIP_OK = '''        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') "
                         "ON CONFLICT DO NOTHING", [schedule.task, slot])
'''
ANSWERS = {
# ---------------- 08.plan: wrong
"plan_w01_skip_runs_oldest": (P, "wrong", "skip (runs the oldest)", '''
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[:1], skip=due[1:])
    raise ValueError(on_missed)
'''),
"plan_w02_nothing_due_crashes": (P, "wrong", "nothing-due (IndexError)", '''
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=[due[-1]], skip=due[:-1])
    raise ValueError(on_missed)
'''),
"plan_w03_skip_loses_oldest": (P, "wrong", "never-lost (skip=due[1:-1])", '''
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[1:-1])
    raise ValueError(on_missed)
'''),
"plan_w04_default_catch_up": (P, "wrong", "unknown-policy (defaults to catch_up)", '''
def plan(due, on_missed):
    due = list(due)
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    return scheduler.Plan(run=due, skip=[])
'''),
"plan_w05_catch_up_newest_first": (P, "wrong", "catch-up (newest first)", '''
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due[::-1], skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)
'''),
"plan_w06_unknown_only_when_due": (P, "wrong", "unknown-policy (whatever is due)", '''
def plan(due, on_missed):
    due = list(due)
    if not due:
        return scheduler.Plan(run=[], skip=[])
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(f"unknown policy {on_missed!r}")
'''),
"plan_w07_latest_in_both": (P, "wrong", "never-lost / exactly one list (latest also skipped)", '''
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due)
    raise ValueError(on_missed)
'''),
"plan_w08_case_insensitive": (P, "wrong", "unknown-policy ('CATCH_UP' accepted)", '''
def plan(due, on_missed):
    due = list(due)
    policy = str(on_missed).strip().lower()
    if policy == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if policy == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)
'''),
"plan_w09_runtime_error": (P, "wrong", "unknown-policy (not a ValueError)", '''
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise RuntimeError(f"unknown on_missed {on_missed!r}")
'''),
"plan_w10_catch_up_last_100": (P, "wrong", "catch-up / never-lost (at most 100)", '''
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due[-100:], skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)
'''),
"plan_w11_small_gap_caught_up": (P, "wrong", "skip (two due are both run)", '''
def plan(due, on_missed):
    due = list(due)
    if on_missed not in ("catch_up", "skip"):
        raise ValueError(on_missed)
    if on_missed == "catch_up" or len(due) <= 2:
        return scheduler.Plan(run=due, skip=[])
    return scheduler.Plan(run=due[-1:], skip=due[:-1])
'''),
"plan_w12_catch_up_drops_last": (P, "wrong", "catch-up (off by one)", '''
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due[:-1] if len(due) > 1 else due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)
'''),
"plan_w13_dedup_set": (P, "wrong", "catch-up (a set: order lost)", '''
def plan(due, on_missed):
    slots = list(set(due))
    if on_missed == "catch_up":
        return scheduler.Plan(run=slots, skip=[])
    if on_missed == "skip":
        latest = max(slots) if slots else None
        return scheduler.Plan(run=[latest] if slots else [], skip=[s for s in slots if s != latest])
    raise ValueError(on_missed)
'''),
# ---------------- 08.plan: correct
"plan_c01_hint": (P, "correct", "correct (hint 4 word for word)", '''
def plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)
'''),
"plan_c02_match_star": (P, "correct", "correct (match, star unpacking)", '''
def plan(due, on_missed):
    match on_missed:
        case "catch_up":
            return scheduler.Plan(run=[*due], skip=[])
        case "skip":
            if not due:
                return scheduler.Plan(run=[], skip=[])
            *older, latest = due
            return scheduler.Plan(run=[latest], skip=older)
        case _:
            raise ValueError(f"on_missed must be 'catch_up' or 'skip', not {on_missed!r}")
'''),
"plan_c03_package": (P, "correct", "correct (the package's plan)", '''
def plan(due, on_missed):
    return scheduler.plan(due, on_missed)
'''),
"plan_c04_dispatch_dict": (P, "correct", "correct (a dict of policies, skip reversed)", '''
POLICIES = {
    "catch_up": lambda slots: (slots, []),
    "skip": lambda slots: (slots[len(slots) - 1:], list(reversed(slots[:len(slots) - 1]))),
}

def plan(due, on_missed):
    try:
        policy = POLICIES[on_missed]
    except (KeyError, TypeError):
        raise ValueError(f"no such missed-run policy: {on_missed!r}") from None
    run, skip = policy(list(due))
    return scheduler.Plan(run=run, skip=skip)
'''),
# ---------------- 08.tick: wrong
"tick_w01_claim_then_enqueue_two_commits": (T, "wrong", "claim-then-enqueue / crash-safe (two commits)", tick(SKIP_OK + '''        for slot in decision.run:
            claimed = conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
                                   "ON CONFLICT DO NOTHING RETURNING slot", [schedule.task, slot]).fetchone()
            if claimed:
                job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s", [job_id, schedule.task, slot])
                enqueued.append(job_id)
    return enqueued
''')),
"tick_w02_check_then_insert": (T, "wrong", "claim-then-enqueue (SELECT, then INSERT: a race)", tick(SKIP_OK + '''        for slot in decision.run:
            with conn.transaction():
                taken = conn.execute("SELECT 1 FROM schedule_runs WHERE task = %s AND slot = %s",
                                     [schedule.task, slot]).fetchone()
                if taken:
                    continue
                job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                conn.execute("INSERT INTO schedule_runs (task, slot, outcome, job_id) VALUES (%s, %s, 'enqueued', %s) "
                             "ON CONFLICT DO NOTHING", [schedule.task, slot, job_id])
                enqueued.append(job_id)
    return enqueued
''')),
"tick_w03_wall_clock": (T, "wrong", "use-now", '''
from datetime import datetime, UTC

def tick(conn, now):
    now = datetime.now(UTC)
    return scheduler.tick(conn, now)
'''),
"tick_w04_skips_not_recorded": (T, "wrong", "record-skipped", tick('''        for slot in decision.run:
            job_id = scheduler.enqueue_slot(conn, schedule, slot)
            if job_id is not None:
                enqueued.append(job_id)
    return enqueued
''')),
"tick_w05_ignores_policy": (T, "wrong", "policy (every due slot run)", '''
def tick(conn, now):
    enqueued = []
    for schedule in scheduler.schedules(conn):
        for slot in scheduler.due_slots(conn, schedule, now):
            job_id = scheduler.enqueue_slot(conn, schedule, slot)
            if job_id is not None:
                enqueued.append(job_id)
    return enqueued
'''),
"tick_w06_no_job_id": (T, "wrong", "store-job-id", tick(SKIP_OK + '''        for slot in decision.run:
            with conn.transaction():
                if conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
                                "ON CONFLICT DO NOTHING RETURNING slot", [schedule.task, slot]).fetchone():
                    enqueued.append(queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot),
                                                  queue=schedule.queue))
    return enqueued
''')),
"tick_w07_default_queue": (T, "wrong", "its-queue", tick(SKIP_OK + '''        for slot in decision.run:
            with conn.transaction():
                if conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
                                "ON CONFLICT DO NOTHING RETURNING slot", [schedule.task, slot]).fetchone():
                    job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot))
                    conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s",
                                 [job_id, schedule.task, slot])
                    enqueued.append(job_id)
    return enqueued
''')),
"tick_w08_payload_without_slot": (T, "wrong", "its-job (payload without the slot)", tick(SKIP_OK + '''        for slot in decision.run:
            with conn.transaction():
                if conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
                                "ON CONFLICT DO NOTHING RETURNING slot", [schedule.task, slot]).fetchone():
                    job_id = queue.enqueue(conn, schedule.job_type, schedule.payload, queue=schedule.queue)
                    conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s",
                                 [job_id, schedule.task, slot])
                    enqueued.append(job_id)
    return enqueued
''')),
"tick_w09_task_as_type": (T, "wrong", "its-job (the task's name as job type)", tick(SKIP_OK + '''        for slot in decision.run:
            with conn.transaction():
                if conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
                                "ON CONFLICT DO NOTHING RETURNING slot", [schedule.task, slot]).fetchone():
                    job_id = queue.enqueue(conn, schedule.task, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                    conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s",
                                 [job_id, schedule.task, slot])
                    enqueued.append(job_id)
    return enqueued
''')),
"tick_w10_runs_before_skips": (T, "wrong", "crash-safe (run slots recorded before the skipped ones)", '''
def tick(conn, now):
    enqueued = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        for slot in decision.run:
            job_id = scheduler.enqueue_slot(conn, schedule, slot)
            if job_id is not None:
                enqueued.append(job_id)
        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') "
                         "ON CONFLICT DO NOTHING", [schedule.task, slot])
    return enqueued
'''),
"tick_w11_job_id_after_commit": (T, "wrong", "crash-safe (job id stored after the commit)", tick(SKIP_OK + '''        for slot in decision.run:
            with conn.transaction():
                claimed = conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
                                       "ON CONFLICT DO NOTHING RETURNING slot", [schedule.task, slot]).fetchone()
                job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot),
                                       queue=schedule.queue) if claimed else None
            if job_id is not None:
                conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s",
                             [job_id, schedule.task, slot])
                enqueued.append(job_id)
    return enqueued
''')),
"tick_w12_unique_key": (T, "wrong", "decided-once (a unique_key on the job, recorded afterwards)", tick(SKIP_OK + '''        for slot in decision.run:
            job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot),
                                   queue=schedule.queue, unique_key=f"{schedule.task}@{slot.isoformat()}")
            if job_id is not None:
                conn.execute("INSERT INTO schedule_runs (task, slot, outcome, job_id) VALUES (%s, %s, 'enqueued', %s) "
                             "ON CONFLICT DO NOTHING", [schedule.task, slot, job_id])
                enqueued.append(job_id)
    return enqueued
''')),
"tick_w13_upsert": (T, "wrong", "claim-then-enqueue (ON CONFLICT DO UPDATE returns a row to everyone)", tick(SKIP_OK + '''        for slot in decision.run:
            with conn.transaction():
                if conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
                                "ON CONFLICT (task, slot) DO UPDATE SET decided_at = now() RETURNING slot",
                                [schedule.task, slot]).fetchone():
                    job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                    conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s",
                                 [job_id, schedule.task, slot])
                    enqueued.append(job_id)
    return enqueued
''')),
"tick_w14_swallows_failed_enqueue": (T, "wrong", "claim-then-enqueue (a failed enqueue swallowed: the slot is lost behind later ones)", tick(SKIP_OK + '''        for slot in decision.run:
            try:
                job_id = scheduler.enqueue_slot(conn, schedule, slot)
            except Exception as error:
                print(f"tick: {schedule.task} {slot}: {error}")
                continue
            if job_id is not None:
                enqueued.append(job_id)
    return enqueued
''')),
"tick_w15_skip_without_on_conflict": (T, "wrong", "record-skipped (no ON CONFLICT: losing the race is an error)", tick('''        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped')",
                         [schedule.task, slot])
        for slot in decision.run:
            job_id = scheduler.enqueue_slot(conn, schedule, slot)
            if job_id is not None:
                enqueued.append(job_id)
    return enqueued
''')),
"tick_w16_db_clock": (T, "wrong", "use-now (reads the clock table)", '''
def tick(conn, now):
    now = scheduler.clock_now(conn) or now
    return scheduler.tick(conn, now)
'''),
"tick_w17_enqueue_then_claim": (T, "wrong", "claim-then-enqueue (enqueue first, then the claim, two commits)", tick(SKIP_OK + '''        for slot in decision.run:
            job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
            won = conn.execute("INSERT INTO schedule_runs (task, slot, outcome, job_id) VALUES (%s, %s, 'enqueued', %s) "
                               "ON CONFLICT DO NOTHING RETURNING slot", [schedule.task, slot, job_id]).fetchone()
            if won:
                enqueued.append(job_id)
            else:
                conn.execute("DELETE FROM jobs WHERE id = %s", [job_id])
    return enqueued
''')),
"tick_w18_returns_every_slot_job": (T, "wrong", "return-ids (returns ids other schedulers enqueued)", tick(SKIP_OK + '''        for slot in decision.run:
            scheduler.enqueue_slot(conn, schedule, slot)
            job_id = conn.execute("SELECT job_id FROM schedule_runs WHERE task = %s AND slot = %s",
                                  [schedule.task, slot]).fetchone()[0]
            if job_id is not None:
                enqueued.append(job_id)
    return enqueued
''')),
"tick_w19_only_latest_skip_recorded": (T, "wrong", "record-skipped (only the newest skip recorded)", tick('''        if decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') "
                         "ON CONFLICT DO NOTHING", [schedule.task, decision.skip[-1]])
        for slot in decision.run:
            job_id = scheduler.enqueue_slot(conn, schedule, slot)
            if job_id is not None:
                enqueued.append(job_id)
    return enqueued
''')),
# ---------------- 08.tick: correct
"tick_c01_hint": (T, "correct", "correct (hint 4, completed)", tick(SKIP_OK + '''        for slot in decision.run:
            with conn.transaction():
                if conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
                                "ON CONFLICT DO NOTHING RETURNING slot", [schedule.task, slot]).fetchone():
                    job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                    conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s",
                                 [job_id, schedule.task, slot])
                    enqueued.append(job_id)
    return enqueued
''')),
"tick_c02_package_helpers": (T, "correct", "correct (skip_slots and enqueue_slot)", '''
def tick(conn, now):
    ids = []
    for schedule in scheduler.schedules(conn):
        due = scheduler.due_slots(conn, schedule, now)
        decision = scheduler.plan(due, schedule.on_missed)
        scheduler.skip_slots(conn, schedule, decision.skip)
        ids += [job_id for job_id in (scheduler.enqueue_slot(conn, schedule, s) for s in decision.run) if job_id]
    return ids
'''),
"tick_c03_unnest_and_returning_update": (T, "correct", "correct (unnest for skips; claim, enqueue, update in one block)", '''
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
'''),
"tick_c04_advisory_lock": (T, "correct", "correct (advisory lock, then check-then-insert under it)", '''
def tick(conn, now):
    out = []
    for schedule in scheduler.schedules(conn):
        decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') "
                         "ON CONFLICT DO NOTHING", (schedule.task, slot))
        for slot in decision.run:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (schedule.task,))
                if conn.execute("SELECT 1 FROM schedule_runs WHERE task = %s AND slot = %s", (schedule.task, slot)).fetchone():
                    continue
                job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)
                conn.execute("INSERT INTO schedule_runs (task, slot, outcome, job_id) VALUES (%s, %s, 'enqueued', %s)",
                             (schedule.task, slot, job_id))
                out.append(job_id)
    return out
'''),
"tick_c05_one_transaction_per_schedule": (T, "correct", "correct (all of a schedule's run slots in one transaction)", '''
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
'''),
}
