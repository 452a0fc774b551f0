"""Lab 08's checks pass correct answers written unlike the reference (issue 22: a check that fails a correct
answer is as wrong as one that passes a wrong one): other spellings of the policy, and ticks that claim
their slots in other ways (one transaction for the whole tick, the job's id reserved before the job,
a unique violation caught, the schedule's row locked first), and the answers the hints spell out. The
ticks run the whole check, the three scheduler processes included.
"""

import pytest
from psycopg import errors
from psycopg.types.json import Jsonb

from course.core import queue
from course.core import scheduler as sched
from course.grading import run_check

# -- 08.plan ---------------------------------------------------------------------------------------------


def plan_hints_spelled_out(due, on_missed):
    """Hint 4, word for word."""
    due = list(due)
    if on_missed == "catch_up":
        return sched.Plan(run=due, skip=[])
    if on_missed == "skip":
        return sched.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)


def plan_by_matching(due, on_missed):
    """match, unpacking, the skipped slots newest first (their order is free)."""
    match on_missed, list(due):
        case ("catch_up", slots):
            return sched.Plan(run=slots, skip=[])
        case ("skip", []):
            return sched.Plan(run=[], skip=[])
        case ("skip", [*older, latest]):
            return sched.Plan(run=[latest], skip=older[::-1])
    raise ValueError(f"unknown on_missed {on_missed!r}")


class PolicyError(ValueError):
    """A schedule's policy the scheduler does not know."""


def plan_with_a_table_of_policies(due, on_missed):
    policies = {"catch_up": lambda slots: (slots, []), "skip": lambda slots: (slots[len(slots) - 1:], slots[:-1])}
    if on_missed not in policies:
        raise PolicyError(on_missed)
    run, skip = policies[on_missed](list(due))
    return sched.Plan(run, skip)


def the_courses_own(due, on_missed):
    return sched.plan(due, on_missed)  # raises InvalidArgument, a ValueError


@pytest.mark.parametrize("plan", [plan_hints_spelled_out, plan_by_matching, plan_with_a_table_of_policies,
                                  the_courses_own])
def test_a_correct_plan_passes(plan):
    report = run_check("08.plan", plan=plan)
    assert report.passed, report.render()


# -- 08.tick ---------------------------------------------------------------------------------------------

CLAIM = ("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
         "ON CONFLICT (task, slot) DO NOTHING RETURNING slot")


def tick_hints_spelled_out(conn, now):
    """Hint 4, its dots filled in as the exercise's statement says."""
    enqueued = []
    for schedule in sched.schedules(conn):
        decision = sched.plan(sched.due_slots(conn, schedule, now), schedule.on_missed)
        for slot in decision.skip:
            conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped') ON CONFLICT DO "
                         "NOTHING", [schedule.task, slot])
        for slot in decision.run:
            with conn.transaction():
                if conn.execute(CLAIM, [schedule.task, slot]).fetchone():
                    job_id = queue.enqueue(conn, schedule.job_type, sched.job_payload(schedule, slot),
                                           queue=schedule.queue)
                    conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s",
                                 [job_id, schedule.task, slot])
                    enqueued.append(job_id)
    return enqueued


def one_transaction_for_the_whole_tick(conn, now):
    """Every schedule's slots in one transaction: the skips with one statement, the course's enqueue_slot
    (a savepoint inside it) for each run."""
    enqueued = []
    with conn.transaction():
        for schedule in sched.schedules(conn):
            decision = sched.plan(sched.due_slots(conn, schedule, now), schedule.on_missed)
            sched.skip_slots(conn, schedule, decision.skip)
            enqueued += [job_id for slot in decision.run
                         if (job_id := sched.enqueue_slot(conn, schedule, slot)) is not None]
    return enqueued


def the_jobs_id_reserved_first(conn, now):
    """The claim takes the job's id from the jobs table's sequence and stores it at once; the job is then
    inserted with that id, in the same transaction (no UPDATE)."""
    enqueued = []
    for schedule in sched.schedules(conn):
        decision = sched.plan(sched.due_slots(conn, schedule, now), schedule.on_missed)
        for slot in decision.skip:
            sched.skip_slot(conn, schedule, slot)
        for slot in decision.run:
            with conn.transaction():
                won = conn.execute("""
                    INSERT INTO schedule_runs (task, slot, outcome, job_id)
                    VALUES (%s, %s, 'enqueued', nextval(pg_get_serial_sequence('jobs', 'id')))
                    ON CONFLICT (task, slot) DO NOTHING RETURNING job_id""", [schedule.task, slot]).fetchone()
                if won is None:
                    continue
                conn.execute("INSERT INTO jobs (id, queue, type, payload) VALUES (%s, %s, %s, %s)",
                             [won[0], schedule.queue, schedule.job_type, Jsonb(sched.job_payload(schedule, slot))])
            enqueued.append(won[0])
    return enqueued


def a_unique_violation_caught(conn, now):
    """No ON CONFLICT: the claim raises when another scheduler has the slot, and the transaction (with the
    job, if any) is rolled back; that is a lost race, not an error."""
    enqueued = []
    for schedule in sched.schedules(conn):
        decision = sched.plan(sched.due_slots(conn, schedule, now), schedule.on_missed)
        sched.skip_slots(conn, schedule, decision.skip)
        for slot in decision.run:
            try:
                with conn.transaction():
                    conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued')",
                                 [schedule.task, slot])
                    job_id = queue.enqueue(conn, schedule.job_type, sched.job_payload(schedule, slot),
                                           queue=schedule.queue)
                    conn.execute("UPDATE schedule_runs SET job_id = %s WHERE (task, slot) = (%s, %s)",
                                 [job_id, schedule.task, slot])
            except errors.UniqueViolation:
                continue
            enqueued.append(job_id)
    return enqueued


def the_schedules_row_locked_first(conn, now):
    """One scheduler at a time per schedule: its row in `schedules` locked, then what is due read and done,
    all in one transaction. A second scheduler waits for the lock, then finds nothing due."""
    enqueued = []
    for task, in conn.execute("SELECT task FROM schedules ORDER BY task").fetchall():
        with conn.transaction():
            conn.execute("SELECT 1 FROM schedules WHERE task = %s FOR UPDATE", [task])
            schedule = next(s for s in sched.schedules(conn) if s.task == task)
            decision = sched.plan(sched.due_slots(conn, schedule, now), schedule.on_missed)
            sched.skip_slots(conn, schedule, decision.skip)
            for slot in decision.run:
                if conn.execute(CLAIM, [task, slot]).fetchone():
                    job_id = queue.enqueue(conn, schedule.job_type, sched.job_payload(schedule, slot),
                                           queue=schedule.queue)
                    conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s",
                                 [job_id, task, slot])
                    enqueued.append(job_id)
    return enqueued


def the_table_locked_then_looked_at(conn, now):
    """Red team f2 (f2d), c6: no ON CONFLICT at all. schedule_runs locked against other writers (SHARE ROW
    EXCLUSIVE conflicts with itself), then the latest decided slot read, the slots computed, and each slot
    looked for before it is inserted: a plain check-then-insert, made safe by the lock it holds to commit."""
    ids = []
    for schedule in sched.schedules(conn):
        with conn.transaction():
            conn.execute("LOCK TABLE schedule_runs IN SHARE ROW EXCLUSIVE MODE")
            last = conn.execute("SELECT max(slot) FROM schedule_runs WHERE task = %s", [schedule.task]).fetchone()[0]
            decision = sched.plan(sched.slots_between(schedule, last, now), schedule.on_missed)
            for slot in decision.skip:
                conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'skipped')",
                             [schedule.task, slot])
            for slot in decision.run:
                if conn.execute("SELECT 1 FROM schedule_runs WHERE task = %s AND slot = %s",
                                [schedule.task, slot]).fetchone():
                    continue
                job_id = queue.enqueue(conn, schedule.job_type, sched.job_payload(schedule, slot), queue=schedule.queue)
                conn.execute("INSERT INTO schedule_runs (task, slot, outcome, job_id) VALUES (%s, %s, 'enqueued', %s)",
                             [schedule.task, slot, job_id])
                ids.append(job_id)
    return ids


@pytest.mark.slow
@pytest.mark.parametrize("tick", [tick_hints_spelled_out, one_transaction_for_the_whole_tick,
                                  the_jobs_id_reserved_first, a_unique_violation_caught,
                                  the_schedules_row_locked_first, the_table_locked_then_looked_at])
def test_a_correct_tick_passes(tick):
    report = run_check("08.tick", tick=tick)
    assert report.passed, report.render()
