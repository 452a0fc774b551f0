"""Lab 08: plausible wrong answers must fail their check, for the reason the learner needs to hear.

The tick's check runs three real scheduler processes; each wrong tick here costs it a couple of seconds.
"""

from datetime import UTC, datetime

import pytest

from course.core import queue, scheduler
from course.grading import run_check

from .wrong_answers import failed, slots_to_run


def assert_fails_on(report, *names):
    assert not report.passed, report.render()
    missing = [n for n in names if not any(n in f for f in failed(report))]
    assert not missing, f"expected failures about {missing}; the report:\n{report.render()}"


# -- 08.plan -----------------------------------------------------------------------------------------


def right_plan(due, on_missed):
    due = list(due)
    if on_missed == "catch_up":
        return scheduler.Plan(run=due, skip=[])
    if on_missed == "skip":
        return scheduler.Plan(run=due[-1:], skip=due[:-1])
    raise ValueError(on_missed)


def skip_forgets_the_older_slots(due, on_missed):
    if on_missed == "skip":
        return scheduler.Plan(run=list(due)[-1:], skip=[])  # the older ones vanish without a trace
    return right_plan(due, on_missed)


def skip_runs_the_oldest(due, on_missed):
    if on_missed == "skip":
        return scheduler.Plan(run=list(due)[:1], skip=list(due)[1:])
    return right_plan(due, on_missed)


def catch_up_runs_the_latest_only(due, on_missed):
    if on_missed == "catch_up":
        return scheduler.Plan(run=list(due)[-1:], skip=list(due)[:-1])
    return right_plan(due, on_missed)


def unknown_means_catch_up(due, on_missed):
    if on_missed == "skip":
        return scheduler.Plan(run=list(due)[-1:], skip=list(due)[:-1])
    return scheduler.Plan(run=list(due), skip=[])


def skip_crashes_on_nothing_due(due, on_missed):
    """A real tick sees an empty list almost every time: due[-1] raises IndexError on it."""
    if on_missed == "skip":
        due = list(due)
        return scheduler.Plan(run=[due[-1]], skip=due[:-1])
    return right_plan(due, on_missed)


def catch_up_drops_a_lone_slot(due, on_missed):
    """'Catching up' only when more than one slot was missed: the boundary, exactly one slot due."""
    if on_missed == "catch_up" and len(list(due)) > 1:
        return scheduler.Plan(run=list(due), skip=[])
    if on_missed == "catch_up":
        return scheduler.Plan(run=[], skip=list(due))
    return right_plan(due, on_missed)


WRONG_PLANS = {
    "skip_crashes_on_nothing_due": (skip_crashes_on_nothing_due, "nothing due: nothing to run or skip"),
    "catch_up_drops_a_lone_slot": (catch_up_drops_a_lone_slot, "one slot due is simply run"),
    "skip_forgets_the_older_slots": (skip_forgets_the_older_slots, "no slot silently lost"),
    "skip_runs_the_oldest": (skip_runs_the_oldest, "skip runs only the latest slot"),
    "catch_up_runs_the_latest_only": (catch_up_runs_the_latest_only, "catch_up runs every missed slot"),
    "unknown_policy_guessed": (unknown_means_catch_up, "an unknown policy is refused"),
    "returns_a_tuple": (lambda due, on_missed: (list(due), []), "returns a Plan"),
}


def test_the_right_plan_passes():
    assert run_check("08.plan", plan=right_plan).passed


@pytest.mark.parametrize("name", WRONG_PLANS)
def test_a_wrong_plan_fails_for_its_reason(name):
    plan, reason = WRONG_PLANS[name]
    assert_fails_on(run_check("08.plan", plan=plan), reason)


def test_a_plan_failure_shows_the_slots_as_times():
    text = run_check("08.plan", plan=skip_runs_the_oldest).render()
    assert "smallest failing example: plan([02:00, 02:05, 02:10, 02:15], 'skip')" in text
    assert "'run': ['02:15']" in text and "'run': ['02:00']" in text


# -- 08.tick -----------------------------------------------------------------------------------------

CLAIM = ("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
         "ON CONFLICT (task, slot) DO NOTHING RETURNING slot")


def enqueue_job(conn, schedule, slot):
    return queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)


def no_claim_at_all(conn, now):
    """Every scheduler enqueues what it finds due: cron on every server, with a record written after."""
    enqueued = []
    for schedule in scheduler.schedules(conn):
        for slot in scheduler.due_slots(conn, schedule, now):
            enqueued.append(enqueue_job(conn, schedule, slot))
            conn.execute(CLAIM, [schedule.task, slot])
    return enqueued


def check_then_insert(conn, now):
    """Looks first, then enqueues: two schedulers both see "not there yet"."""
    enqueued = []
    for schedule in scheduler.schedules(conn):
        for slot in slots_to_run(conn, schedule, now):
            taken = conn.execute("SELECT 1 FROM schedule_runs WHERE task = %s AND slot = %s",
                                 [schedule.task, slot]).fetchone()
            if not taken:
                enqueued.append(enqueue_job(conn, schedule, slot))
                conn.execute(CLAIM, [schedule.task, slot])
    return enqueued


def claim_and_enqueue_apart(conn, now):
    """Right claim, but in autocommit: the claim commits on its own, before the enqueue."""
    enqueued = []
    for schedule in scheduler.schedules(conn):
        for slot in slots_to_run(conn, schedule, now):
            if conn.execute(CLAIM, [schedule.task, slot]).fetchone():
                enqueued.append(enqueue_job(conn, schedule, slot))
    return enqueued


def latest_slot_only(conn, now):
    """Ignores the policy: runs the latest due slot and writes nothing down for the others."""
    enqueued = []
    for schedule in scheduler.schedules(conn):
        for slot in scheduler.due_slots(conn, schedule, now)[-1:]:
            with conn.transaction():
                if conn.execute(CLAIM, [schedule.task, slot]).fetchone():
                    enqueued.append(enqueue_job(conn, schedule, slot))
    return enqueued


def unique_key_in_the_jobs_table(conn, now):
    """De-duplicates with the jobs table's unique_key: it holds only while the job waits."""
    enqueued = []
    for schedule in scheduler.schedules(conn):
        for slot in scheduler.due_slots(conn, schedule, now):
            job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot),
                                   unique_key=f"{schedule.task}@{slot.isoformat()}")
            if job_id is not None:
                enqueued.append(job_id)
    return enqueued


def reads_the_wall_clock(conn, now):
    return scheduler.tick(conn, datetime.now(UTC))


def store_job_id(conn, schedule, slot, job_id):
    conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s", [job_id, schedule.task, slot])


def solution_tick_but(*, on_its_queue=True, stores_the_id=True, on_conflict=True, stored_id=None, returns_ids=True,
                      stores_the_id_after_the_commit=False):
    """The solution's tick with one rule broken (each found by the mutation sweep, passing every check)."""
    claim = CLAIM if on_conflict else CLAIM.replace(" ON CONFLICT (task, slot) DO NOTHING", "")

    def tick(conn, now):
        enqueued = []
        for schedule in scheduler.schedules(conn):
            for slot in slots_to_run(conn, schedule, now):
                with conn.transaction():
                    if conn.execute(claim, [schedule.task, slot]).fetchone() is None:
                        continue
                    job_id = queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot),
                                           **({"queue": schedule.queue} if on_its_queue else {}))
                    if stores_the_id and not stores_the_id_after_the_commit:
                        store_job_id(conn, schedule, slot, job_id if stored_id is None else stored_id)
                if stores_the_id_after_the_commit:
                    store_job_id(conn, schedule, slot, job_id)  # a crash just before this loses it for good
                enqueued.append(job_id)
        return enqueued if returns_ids else len(enqueued)
    return tick


WRONG_TICKS = {  # the tick, the check that must fail, and what its report must show
    "default_queue": (solution_tick_but(on_its_queue=False), ["the job goes on its schedule's queue"],
                      ["queue=schedule.queue"]),
    "job_id_not_stored": (solution_tick_but(stores_the_id=False), ["holds its job's id"], ["UPDATE schedule_runs"]),
    "the_demos_job_id": (solution_tick_but(stored_id=1), ["holds the id of its own job"], ["job_id 1"]),
    "job_id_stored_after_the_commit": (solution_tick_but(stores_the_id_after_the_commit=True),
                                       ["killed after enqueueing a slot's job and before storing its id"],
                                       ["('enqueued', None)", "inside the transaction that claimed the slot"]),
    "no_on_conflict": (solution_tick_but(on_conflict=False), ["losing the race for a slot"],
                       ["UniqueViolation", "ON CONFLICT"]),
    "no_claim_at_all": (no_claim_at_all, ["enqueue each slot once"],
                        ["release_unpaid_holds, slot 01:55", "3 job(s)", "scheduler-1", "scheduler-2",
                         "scheduler-3", "committed job"]),
    "check_then_insert": (check_then_insert, ["enqueue each slot once"], ["only the one whose INSERT"]),
    "claim_and_enqueue_apart": (claim_and_enqueue_apart, ["a failed enqueue does not lose its slot"],
                                ["recorded as enqueued, but its job never committed", "injected by the check"]),
    "latest_slot_only": (latest_slot_only, ["catch_up: each missed night", "recorded as skipped"],
                         ["nightly_invoices, slot 15 Mar 02:00"]),
    "unique_key_in_the_jobs_table": (unique_key_in_the_jobs_table, ["not enqueued again"],
                                     ["must outlive its job"]),
    "reads_the_wall_clock": (reads_the_wall_clock, ["one tick at 01:52"], ["not the wall clock"]),
    "returns_how_many": (solution_tick_but(returns_ids=False), ["returns the ids of the jobs it enqueued"], []),
}


def test_the_solution_tick_passes():
    assert run_check("08.tick", tick=solution_tick_but()).passed


@pytest.mark.parametrize("name", WRONG_TICKS)
@pytest.mark.slow
def test_a_wrong_tick_fails_for_its_reason(name):
    tick, reasons, shown = WRONG_TICKS[name]
    report = run_check("08.tick", tick=tick)
    assert_fails_on(report, *reasons)
    text = report.render()
    assert all(words in text for words in shown), text


def test_a_tick_that_always_raises_fails_at_once():
    def tick(conn, now):
        raise RuntimeError("no database for you")

    text = run_check("08.tick", tick=tick).render()
    assert "tick(conn, 01:52) in this process" in text and "RuntimeError: no database for you" in text


@pytest.mark.slow
def test_a_tick_that_raises_only_in_the_scheduler_processes_is_reported_with_its_log():
    def tick(conn, now):
        if (conn.info.parameter_status("application_name") or "").startswith("scheduler-"):
            raise LookupError("only in a scheduler process")
        return scheduler.tick(conn, now)

    text = run_check("08.tick", tick=tick).render()
    assert "its tick keeps raising LookupError: only in a scheduler process" in text
