"""Lab 08's checks fail plausible wrong answers, for the reason the learner needs to hear.

Each wrong answer breaks one rule (or, where noted, two by its nature), and the test asserts exactly which
checks fail. The tick's check runs three real scheduler processes only once everything before passes, so
a wrong tick fails in a few seconds; two tests run that stage (the solution's, and a tick that raises
only there).
"""

from datetime import UTC, datetime, timedelta

import pytest

from course.core import queue, scheduler
from course.grading import run_check

from .wrong_answers import failed, fails_exactly, slots_to_run


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


NOTHING = "nothing due: nothing to run or skip"
ONE = "one slot due is simply run"
LOST = "no slot silently lost"
SKIP = "skip runs only the latest slot"
CATCH_UP = "catch_up runs every missed slot"
UNKNOWN = "an unknown policy is refused"
A_PLAN = "returns a Plan(run=[...], skip=[...])"


def assert_error_instead(due, on_missed):
    """An unknown policy is refused, but not with a ValueError: a KeyError says a key is missing."""
    return {"catch_up": lambda: right_plan(due, "catch_up"), "skip": lambda: right_plan(due, "skip")}[on_missed]()


def skip_keeps_the_newest_two(due, on_missed):
    """'Skip' read as 'do not pile up': runs the last two, skips the rest."""
    if on_missed == "skip":
        return scheduler.Plan(run=list(due)[-2:], skip=list(due)[:-2])
    return right_plan(due, on_missed)


def catch_up_newest_first(due, on_missed):
    if on_missed == "catch_up":
        return scheduler.Plan(run=list(reversed(list(due))), skip=[])
    return right_plan(due, on_missed)


def skip_records_the_run_slot_too(due, on_missed):
    """The latest is run, and every slot (the latest included) is written down as skipped."""
    if on_missed == "skip":
        return scheduler.Plan(run=list(due)[-1:], skip=list(due))
    return right_plan(due, on_missed)


def guesses_a_policy_only_when_slots_are_due(due, on_missed):
    """Refuses an unknown policy only when there is something to run: a typo waits for the next outage."""
    if not list(due):
        return scheduler.Plan(run=[], skip=[])
    return right_plan(due, on_missed)


def policy_read_loosely(due, on_missed):
    """'Catch-up', 'SKIP', ' skip' accepted as the two policies."""
    policy = on_missed.strip().lower().replace("-", "_")
    return right_plan(due, policy if policy in scheduler.POLICIES else on_missed)


WRONG_PLANS = {  # the answer, the checks it must fail, the checks it may fail as well
    "skip_crashes_on_nothing_due": (skip_crashes_on_nothing_due, [NOTHING], []),
    "catch_up_drops_a_lone_slot": (catch_up_drops_a_lone_slot, [ONE], []),
    "skip_forgets_the_older_slots": (skip_forgets_the_older_slots, [LOST], []),
    "skip_runs_the_oldest": (skip_runs_the_oldest, [SKIP], []),
    "catch_up_runs_the_latest_only": (catch_up_runs_the_latest_only, [CATCH_UP], []),
    "unknown_policy_guessed": (unknown_means_catch_up, [UNKNOWN], []),
    "returns_a_tuple": (lambda due, on_missed: (list(due), []), [A_PLAN], [UNKNOWN]),
    "refused_with_a_key_error": (assert_error_instead, [UNKNOWN], []),
    "skip_keeps_the_newest_two": (skip_keeps_the_newest_two, [SKIP], []),
    "catch_up_newest_first": (catch_up_newest_first, [CATCH_UP], []),
    "skip_records_the_run_slot_too": (skip_records_the_run_slot_too, [LOST], [ONE]),
    "guesses_a_policy_only_when_slots_are_due": (guesses_a_policy_only_when_slots_are_due, [UNKNOWN], []),
    "policy_read_loosely": (policy_read_loosely, [UNKNOWN], []),
}


def test_the_right_plan_passes():
    report = run_check("08.plan", plan=right_plan)
    assert report.passed, report.render()


@pytest.mark.parametrize("name", WRONG_PLANS)
def test_a_wrong_plan_fails_for_its_reason(name):
    plan, reasons, may = WRONG_PLANS[name]
    report = run_check("08.plan", plan=plan)
    assert fails_exactly(report, reasons, may), report.render()


def test_a_plan_failure_shows_the_smallest_list_of_slots_as_times():
    text = run_check("08.plan", plan=skip_runs_the_oldest).render()
    assert "smallest failing example: plan([02:00, 02:05], 'skip')" in text
    assert "got:      \"run ['02:00'], skip ['02:05']\"" in text


# -- 08.tick -----------------------------------------------------------------------------------------

RUNS = "ticks without an error"
USE_NOW = "uses the `now` it is given"
POLICY = "follows each schedule's missed-run policy"
SKIPPED = "records each slot the policy skips"
CLAIMED = "each slot it runs is recorded in schedule_runs as 'enqueued', with exactly one job"
DECIDED_ONCE = "a slot whose job has finished is not enqueued again"
QUEUE = "the job goes on its schedule's queue"
ITS_JOB = "each slot's job is its schedule's"
JOB_ID = "the slot's row in schedule_runs holds its job's id"
RETURNS = "returns the ids of the jobs it enqueued"
FAULT = "a failed enqueue does not lose its slot"
RACE = "two schedulers ticking at the same moment"
LOSE = "losing the race for a slot"
KILLED = "killed between any two of its statements"

CLAIM = ("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
         "ON CONFLICT (task, slot) DO NOTHING RETURNING slot")


def enqueue_job(conn, schedule, slot):
    return queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), queue=schedule.queue)


def store_job_id(conn, schedule, slot, job_id):
    conn.execute("UPDATE schedule_runs SET job_id = %s WHERE task = %s AND slot = %s", [job_id, schedule.task, slot])


def no_claim_at_all(conn, now):
    """Cron on every server: enqueues what it finds due, then writes the record (which wins or not)."""
    enqueued = []
    for schedule in scheduler.schedules(conn):
        for slot in slots_to_run(conn, schedule, now):
            job_id = enqueue_job(conn, schedule, slot)
            conn.execute(CLAIM, [schedule.task, slot])
            store_job_id(conn, schedule, slot, job_id)
            enqueued.append(job_id)
    return enqueued


def check_then_insert(conn, now):
    """Looks first, then claims and enqueues in one transaction: two schedulers both see "not there yet"."""
    enqueued = []
    for schedule in scheduler.schedules(conn):
        for slot in slots_to_run(conn, schedule, now):
            with conn.transaction():
                taken = conn.execute("SELECT 1 FROM schedule_runs WHERE task = %s AND slot = %s",
                                     [schedule.task, slot]).fetchone()
                if taken:
                    continue
                job_id = enqueue_job(conn, schedule, slot)
                conn.execute(CLAIM, [schedule.task, slot])
                store_job_id(conn, schedule, slot, job_id)
            enqueued.append(job_id)
    return enqueued


def claim_and_enqueue_apart(conn, now):
    """Right claim, but in autocommit: the claim commits on its own, before the enqueue."""
    enqueued = []
    for schedule in scheduler.schedules(conn):
        for slot in slots_to_run(conn, schedule, now):
            if conn.execute(CLAIM, [schedule.task, slot]).fetchone():
                job_id = enqueue_job(conn, schedule, slot)
                store_job_id(conn, schedule, slot, job_id)
                enqueued.append(job_id)
    return enqueued


def latest_slot_only(conn, now):
    """Ignores the policy: runs the latest due slot and writes nothing down for the others."""
    enqueued = []
    for schedule in scheduler.schedules(conn):
        for slot in scheduler.due_slots(conn, schedule, now)[-1:]:
            with conn.transaction():
                if conn.execute(CLAIM, [schedule.task, slot]).fetchone():
                    job_id = enqueue_job(conn, schedule, slot)
                    store_job_id(conn, schedule, slot, job_id)
                    enqueued.append(job_id)
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


def reads_the_simulated_clock(conn, now):
    """Ticks at the time the lab's scheduler processes read (red5's blind round: it passed while that table was
    empty in every scenario)."""
    return scheduler.tick(conn, scheduler.clock_now(conn) or now)


def slots_before_now_only(conn, now):
    """Counts a slot as due once its moment has passed (slot < now): the slot at exactly now waits a tick."""
    return scheduler.tick(conn, now - timedelta(microseconds=1))


def solution_tick_but(*, on_its_queue=True, stores_the_id=True, on_conflict=True, stored_id=None, returns_ids=True,
                      stores_the_id_after_the_commit=False, job_type=lambda schedule: schedule.job_type,
                      payload=scheduler.job_payload, skips_first=True, records_skips=True, returns_lost_slots=False):
    """The solution's tick with one rule broken (each found by the mutation sweep or the red team)."""
    claim = CLAIM if on_conflict else CLAIM.replace(" ON CONFLICT (task, slot) DO NOTHING", "")

    def skip(conn, schedule, slots):
        if records_skips:
            for slot in slots:
                scheduler.skip_slot(conn, schedule, slot)

    def tick(conn, now):
        enqueued = []
        for schedule in scheduler.schedules(conn):
            decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
            if skips_first:
                skip(conn, schedule, decision.skip)
            for slot in decision.run:
                with conn.transaction():
                    if conn.execute(claim, [schedule.task, slot]).fetchone() is None:
                        if returns_lost_slots:  # "the slot's job", whoever enqueued it
                            enqueued.append(conn.execute("SELECT job_id FROM schedule_runs WHERE task = %s AND "
                                                         "slot = %s", [schedule.task, slot]).fetchone()[0])
                        continue
                    job_id = queue.enqueue(conn, job_type(schedule), payload(schedule, slot),
                                           **({"queue": schedule.queue} if on_its_queue else {}))
                    if stores_the_id and not stores_the_id_after_the_commit:
                        store_job_id(conn, schedule, slot, job_id if stored_id is None else stored_id)
                if stores_the_id_after_the_commit:
                    store_job_id(conn, schedule, slot, job_id)  # a crash just before this loses it for good
                enqueued.append(job_id)
            if not skips_first:
                skip(conn, schedule, decision.skip)
        return enqueued if returns_ids else len(enqueued)
    return tick


def select_for_update_first(conn, now):
    """Locks the slot's row before claiming it: there is no row yet, so the lock holds nothing."""
    enqueued = []
    for schedule in scheduler.schedules(conn):
        for slot in slots_to_run(conn, schedule, now):
            with conn.transaction():
                if conn.execute("SELECT 1 FROM schedule_runs WHERE task = %s AND slot = %s FOR UPDATE",
                                [schedule.task, slot]).fetchone():
                    continue
                conn.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued') "
                             "ON CONFLICT DO NOTHING", [schedule.task, slot])
                job_id = enqueue_job(conn, schedule, slot)
                store_job_id(conn, schedule, slot, job_id)
            enqueued.append(job_id)
    return enqueued


def wrong_slot_text(schedule, slot):
    return {**schedule.payload, "slot": str(slot)}  # '2099-03-14 02:10:00+00:00', not the ISO text jobs read


def returns_every_id_so_far():
    """Red team f2 (f2d), w08: the ids kept across calls and all returned, right on a scheduler's first tick
    only."""
    made = []
    tick = solution_tick_but()

    def every_id_so_far(conn, now):
        made.extend(tick(conn, now))
        return list(made)
    return every_id_so_far


WRONG_TICKS = {  # the tick, the checks it must fail, the checks it may fail as well, and what its report shows
    "default_queue": (solution_tick_but(on_its_queue=False), [QUEUE], [], ["queue=schedule.queue"]),
    "job_id_not_stored": (solution_tick_but(stores_the_id=False), [JOB_ID], [], ["UPDATE schedule_runs"]),
    "the_demos_job_id": (solution_tick_but(stored_id=1), [JOB_ID], [], ["the id of another job"]),
    "job_id_stored_after_the_commit": (solution_tick_but(stores_the_id_after_the_commit=True), [KILLED], [],
                                       ["job_id NULL", "inside the transaction that claimed the slot"]),
    "no_on_conflict": (solution_tick_but(on_conflict=False), [LOSE], [], ["UniqueViolation", "ON CONFLICT"]),
    "no_claim_at_all": (no_claim_at_all, [RACE], [LOSE, KILLED], ["2 jobs", "scheduler B ran"]),
    "check_then_insert": (check_then_insert, [RACE], [], ["only the one whose INSERT"]),
    "select_for_update_first": (select_for_update_first, [RACE], [], ["2 jobs"]),
    "claim_and_enqueue_apart": (claim_and_enqueue_apart, [FAULT], [KILLED],
                                ["recorded 'enqueued', no job", "enqueue number"]),
    "latest_slot_only": (latest_slot_only, [POLICY, SKIPPED], [], ["catch_up"]),
    "skips_not_recorded": (solution_tick_but(records_skips=False), [SKIPPED], [], ["'skipped'"]),
    "skips_recorded_after_the_run": (solution_tick_but(skips_first=False), [KILLED], [], ["killed just before"]),
    "unique_key_in_the_jobs_table": (unique_key_in_the_jobs_table, [DECIDED_ONCE], [SKIPPED, POLICY],
                                     ["nothing remembers the slot", "jobs table forgets"]),
    "the_tasks_name_as_job_type": (solution_tick_but(job_type=lambda schedule: schedule.task), [ITS_JOB], [],
                                   ["its job's type"]),
    "the_slot_as_str": (solution_tick_but(payload=wrong_slot_text), [ITS_JOB], [], ["its job's payload"]),
    "the_schedules_payload_dropped": (solution_tick_but(payload=lambda schedule, slot: {
        "slot": slot.astimezone(UTC).isoformat()}), [ITS_JOB], [], ["its job's payload"]),
    "reads_the_wall_clock": (reads_the_wall_clock, [USE_NOW], [], ["wall clock"]),
    "reads_the_simulated_clock": (reads_the_simulated_clock, [USE_NOW], [RUNS, POLICY, SKIPPED], []),
    "slots_before_now_only": (slots_before_now_only, [POLICY], [], ["exactly now", "slot <= now"]),
    "returns_how_many": (solution_tick_but(returns_ids=False), [RETURNS], [], ["returned 0"]),
    "returns_every_id_so_far": (returns_every_id_so_far(), [RETURNS], [], ["the ids of the jobs it enqueued: ["]),
    "returns_the_winners_job": (solution_tick_but(returns_lost_slots=True), [RETURNS], [], ["scheduler B"]),
}


def test_the_solution_tick_passes():
    report = run_check("08.tick", tick=solution_tick_but())
    assert report.passed, report.render()


@pytest.mark.parametrize("name", WRONG_TICKS)
def test_a_wrong_tick_fails_for_its_reason(name):
    tick, reasons, may, shown = WRONG_TICKS[name]
    report = run_check("08.tick", tick=tick)
    text = report.render()
    assert fails_exactly(report, reasons, may), text
    assert all(words in text for words in shown), text


def test_a_tick_that_always_raises_fails_at_once():
    def tick(conn, now):
        raise RuntimeError("no database for you")

    text = run_check("08.tick", tick=tick).render()
    assert "raised RuntimeError: no database for you" in text and "three scheduler processes run it once" in text


@pytest.mark.slow
def test_a_tick_that_raises_only_in_the_scheduler_processes_is_reported_with_its_log():
    def tick(conn, now):
        if (conn.info.parameter_status("application_name") or "").startswith("scheduler-"):
            raise LookupError("only in a scheduler process")
        return scheduler.tick(conn, now)

    text = run_check("08.tick", tick=tick).render()
    assert "its tick keeps raising LookupError: only in a scheduler process" in text


def test_the_checks_model_of_the_reference_is_the_reference_tick():
    """world.expected_view (what the check compares with) is what course.core.scheduler.tick leaves, on every
    family of generated tables."""
    import random

    from course.grading import differential as diff
    from course.grading.checks.lab08 import tick as checks
    from course.grading.checks.lab08.world import expected_view, families, view
    from course.grading.trial import Trial

    t = Trial("08.tick")
    try:
        box = t.scratch()
        scheduler.install(box.conn)
        box.conn.execute(checks.INSTRUMENTS)
        judge = checks.TickJudge(t, box, scheduler.tick)
        rng, draw = random.Random(5), diff.in_turn(families())
        for _ in range(36):
            world = draw(rng)
            side = judge.run(world, checks.reference_tick)
            assert view(world, side.state, side.before).same(expected_view(world)), world.told()
            assert not side.again_made
    finally:
        t.close()


# -- 08.quiz ---------------------------------------------------------------------------------------------

RIGHT = dict(q1="b", q2="c", q3="a", q4="b", q5="b")


@pytest.mark.parametrize("wrong, question", [
    (dict(q1="a"), "q1"),  # check, then enqueue: both schedulers see "not there yet"
    (dict(q2="b"), "q2"),  # catch up every missed slot, whatever its policy
    (dict(q3="c"), "q3"),  # the slot's row depends on the job's idempotency
    (dict(q4="a"), "q4"),  # READ COMMITTED's answer, where REPEATABLE READ fails to serialize
    (dict(q5="a"), "q5"),  # a later tick enqueues a slot its row says is decided
], ids=lambda x: x if isinstance(x, str) else "")
def test_a_wrong_quiz_letter_fails_its_question_alone_without_giving_the_answer(wrong, question):
    report = run_check("08.quiz", **{**RIGHT, **wrong})
    assert [name.split(":")[0] for name in failed(report)] == [question], report.render()
    assert f"'{RIGHT[question]}'" not in report.render()


# -- a stub scores nothing ------------------------------------------------------------------------------------


def test_a_tick_that_decides_nothing_is_not_judged_on_what_it_changed():
    """A do-nothing tick "changes nothing but schedule_runs and the jobs it enqueues", vacuously: round f2 (f2d)
    saw that row passed, 1 of 14. It is not judged until the tick has decided a slot or enqueued a job (every
    code exercise's do-nothing answer: tests/grading/test_grading.py)."""
    report = run_check("08.tick", seed=1, tick=lambda *args, **kwargs: None)
    runs = next(r for r in report.results if r.name.startswith("ticks without an error"))
    assert not runs.passed and not runs.reached and "never decided a slot" in runs.note, report.render()
