"""course.core.scheduler: slots, the missed-run policy, one job per (task, slot) from many scheduler
processes at once, the simulated clock and the real one, and StayHub's two jobs. (The crontab it is
compared with is tests/programs/test_crontab.py's.)

Real PostgreSQL, real processes. The simulated clock means no test waits for wall-clock time, except
the one that runs a scheduler on the real clock for a couple of seconds.
"""

import threading
from collections import Counter
from datetime import UTC, date, datetime, timedelta

import pytest

from course.infra import db, processes
from course.core import queue, scheduler
from course.programs import stayhub_recurring
from course.errors import CourseError, InvalidArgument

FIVE_MINUTES = timedelta(minutes=5)


def at(day, hh, mm):
    return datetime(2026, 3, day, hh, mm, tzinfo=UTC)


@pytest.fixture
def sched(conn):
    scheduler.install(conn)
    return conn


def add_holds_and_invoices(conn, day=14):
    holds = scheduler.add(conn, "release_unpaid_holds", every=FIVE_MINUTES, first=at(day, 2, 0), on_missed="skip")
    invoices = scheduler.add(conn, "nightly_invoices", every=timedelta(days=1), first=at(day, 2, 0),
                             on_missed="catch_up")
    return holds, invoices


def jobs_per_slot(conn) -> Counter:
    return Counter(conn.execute("SELECT type, (payload->>'slot')::timestamptz FROM jobs").fetchall())


@pytest.fixture
def schedulers(schema, started):
    """start(n) -> [Child]; all killed at the end of the test."""
    def start(n=3, prefix="server"):
        children = scheduler.start(schema, n, prefix=prefix)
        started.extend(children)
        return children

    return start


# -- slots and the policy --------------------------------------------------------------------------


def test_slots_between_excludes_after_and_includes_until(sched):
    holds, _ = add_holds_and_invoices(sched)
    assert scheduler.slots_between(holds, None, at(14, 1, 59)) == []
    assert scheduler.slots_between(holds, None, at(14, 2, 0)) == [at(14, 2, 0)]
    assert scheduler.slots_between(holds, at(14, 2, 0), at(14, 2, 10)) == [at(14, 2, 5), at(14, 2, 10)]
    assert scheduler.slots_between(holds, at(14, 2, 3), at(14, 2, 9)) == [at(14, 2, 5)]
    assert scheduler.slots_between(holds, at(13, 0, 0), at(14, 2, 0)) == [at(14, 2, 0)]  # never before first


def test_a_slot_count_that_can_only_be_a_mistake_is_refused(sched):
    holds, _ = add_holds_and_invoices(sched)
    with pytest.raises(InvalidArgument, match="slots are due at once"):
        scheduler.slots_between(holds, None, at(14, 2, 0) + timedelta(days=3650))


def test_plan_catches_up_or_skips_and_refuses_a_policy_it_does_not_know():
    due = [at(14, 2, m) for m in (0, 5, 10)]
    assert scheduler.plan(due, "catch_up") == scheduler.Plan(run=due, skip=[])
    assert scheduler.plan(due, "skip") == scheduler.Plan(run=due[-1:], skip=due[:-1])
    assert scheduler.plan([], "skip") == scheduler.Plan(run=[], skip=[])
    with pytest.raises(InvalidArgument, match="catch_up' or 'skip'"):
        scheduler.plan(due, "sometimes")


@pytest.mark.parametrize("kwargs, message", [
    (dict(every=timedelta(0)), "a second or more"),
    (dict(every=300), "timedelta"),
    (dict(first=datetime(2026, 3, 14, 2, 0)), "time zone"),
    (dict(on_missed="later"), "catch_up' or 'skip'"),
    (dict(payload={"slot": "mine"}), "must not have a 'slot'"),
])
def test_add_refuses_a_schedule_that_cannot_work(sched, kwargs, message):
    arguments = dict(every=FIVE_MINUTES, first=at(14, 2, 0), on_missed="skip") | kwargs
    with pytest.raises(InvalidArgument, match=message):
        scheduler.add(sched, "release_unpaid_holds", **arguments)
    assert scheduler.schedules(sched) == []


def test_adding_a_task_again_changes_it(sched):
    scheduler.add(sched, "report", every=FIVE_MINUTES, first=at(14, 2, 0), on_missed="skip")
    changed = scheduler.add(sched, "report", every=timedelta(hours=1), first=at(14, 3, 0), on_missed="catch_up",
                            payload={"format": "pdf"})
    assert scheduler.schedules(sched) == [changed]
    assert (changed.every, changed.on_missed, changed.payload) == (timedelta(hours=1), "catch_up", {"format": "pdf"})


# -- tick, in this process -------------------------------------------------------------------------


def test_a_tick_enqueues_each_due_slot_once_with_the_slot_in_the_payload(sched):
    add_holds_and_invoices(sched)
    ids = scheduler.tick(sched, at(14, 2, 0))
    assert len(ids) == 2
    assert jobs_per_slot(sched) == {("release_unpaid_holds", at(14, 2, 0)): 1, ("nightly_invoices", at(14, 2, 0)): 1}
    assert scheduler.tick(sched, at(14, 2, 0)) == []  # the same time again: nothing new
    assert scheduler.tick(sched, at(14, 2, 4)) == []
    [run] = [r for r in scheduler.runs(sched, "release_unpaid_holds")]
    assert run.outcome == "enqueued" and run.job_id in ids


def test_a_finished_slot_is_not_enqueued_again(sched):
    add_holds_and_invoices(sched)
    scheduler.tick(sched, at(14, 2, 0))
    sched.execute("DELETE FROM jobs")  # a worker ran them: the jobs table forgets them
    assert scheduler.tick(sched, at(14, 2, 0)) == []
    assert len(scheduler.tick(sched, at(14, 2, 5))) == 1


def test_missed_slots_are_caught_up_or_skipped_and_recorded(sched):
    add_holds_and_invoices(sched)
    scheduler.tick(sched, at(14, 2, 0))
    scheduler.tick(sched, at(16, 2, 7))  # nobody ticked for two days
    outcomes = Counter((r.task, r.outcome) for r in scheduler.runs(sched))
    assert outcomes == {("nightly_invoices", "enqueued"): 3, ("release_unpaid_holds", "enqueued"): 2,
                        ("release_unpaid_holds", "skipped"): 2 * 288}
    nights = sorted(slot for task, slot in jobs_per_slot(sched) if task == "nightly_invoices")
    assert nights == [at(14, 2, 0), at(15, 2, 0), at(16, 2, 0)]
    assert ("release_unpaid_holds", at(16, 2, 5)) in jobs_per_slot(sched)


def test_a_failed_enqueue_takes_its_claim_back_and_the_next_tick_retries(sched):
    add_holds_and_invoices(sched)
    sched.execute("""
        CREATE SEQUENCE inserts;
        CREATE FUNCTION fail_first() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF nextval('inserts') = 1 THEN RAISE EXCEPTION 'the connection dropped'; END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER fail_first BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION fail_first();
    """)
    with pytest.raises(Exception, match="the connection dropped"):
        scheduler.tick(sched, at(14, 2, 0))
    assert scheduler.runs(sched) == []  # the claim rolled back with the failed enqueue
    assert len(scheduler.tick(sched, at(14, 2, 0))) == 2


def test_ticks_from_many_connections_at_the_same_moment_enqueue_each_slot_once(schema, sched):
    add_holds_and_invoices(sched)
    start = threading.Barrier(6)
    returned = []

    def one_scheduler():
        with db.connect(schema) as conn:
            start.wait()
            returned.extend(scheduler.tick(conn, at(14, 2, 30)))

    threads = [threading.Thread(target=one_scheduler) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    per_slot = jobs_per_slot(sched)
    assert set(per_slot.values()) == {1} and len(per_slot) == 2  # 02:30 (skip policy) and the night
    assert sorted(returned) == sorted(r[0] for r in sched.execute("SELECT id FROM jobs"))
    assert Counter(r.outcome for r in scheduler.runs(sched)) == {"enqueued": 2, "skipped": 6}


# -- the clock and the processes -------------------------------------------------------------------


def test_the_clock_must_be_set_before_it_moves(sched):
    assert scheduler.clock_now(sched) is None
    with pytest.raises(CourseError, match="has not been set"):
        scheduler.advance_clock(sched, FIVE_MINUTES)
    with pytest.raises(InvalidArgument, match="time zone"):
        scheduler.set_clock(sched, datetime(2026, 3, 14, 2, 0))
    scheduler.set_clock(sched, at(14, 1, 58))
    assert scheduler.advance_clock(sched, FIVE_MINUTES) == at(14, 2, 3)


@pytest.mark.slow
def test_three_shared_schedulers_enqueue_each_slot_once_and_survive_a_crash(sched, schedulers):
    add_holds_and_invoices(sched)
    scheduler.set_clock(sched, at(14, 1, 58))
    servers = schedulers(3)
    for minute in (0, 5):
        scheduler.set_clock(sched, at(14, 2, minute), wait_for=servers)
    servers[0].kill()
    scheduler.set_clock(sched, at(14, 2, 10), wait_for=servers[1:])
    per_slot = jobs_per_slot(sched)
    assert sorted(per_slot.values()) == [1, 1, 1, 1] and len(per_slot) == 4
    beats = {b.name: b for b in scheduler.heartbeats(sched)}
    assert all(beats[c.name].clock_seen == at(14, 2, 10) for c in servers[1:])
    assert [child.terminate() for child in servers[1:]] == [0, 0]  # SIGTERM: a clean stop


@pytest.mark.slow
def test_a_scheduler_whose_tick_fails_keeps_going_and_says_why(sched, schedulers):
    add_holds_and_invoices(sched)
    sched.execute("""
        CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'jobs are refused today'; END $$;
        CREATE TRIGGER refuse BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION refuse();
    """)
    scheduler.set_clock(sched, at(14, 1, 58))
    [server] = schedulers(1)
    scheduler.set_clock(sched, at(14, 2, 0))
    beat = processes.wait_until(lambda: next((b for b in scheduler.heartbeats(sched) if b.errors >= 2), None),
                                timeout=20, what="failed ticks in the heartbeat")
    assert "jobs are refused today" in beat.last_error and server.alive()
    with pytest.raises(CourseError, match=r"has not finished a tick at 2026-03-14 02:00 within 0.5 s( \(stretched to \d+ s at "
                                          r"this machine's load\))?; its last "
                                          "error: .*jobs are refused today"):
        scheduler.wait_for_ticks(sched, [server], at(14, 2, 0), timeout=0.5)
    sched.execute("DROP TRIGGER refuse ON jobs")
    scheduler.wait_for_ticks(sched, [server], at(14, 2, 0), timeout=20)
    assert len(jobs_per_slot(sched)) == 2


@pytest.mark.slow
def test_waiting_for_a_scheduler_that_died_shows_its_log(sched, schedulers):
    add_holds_and_invoices(sched)
    scheduler.set_clock(sched, at(14, 1, 58))
    [server] = schedulers(1)
    server.kill()
    with pytest.raises(CourseError, match="has stopped"):
        scheduler.set_clock(sched, at(14, 2, 0), wait_for=[server], timeout=5)


@pytest.mark.slow
def test_on_the_real_clock_a_scheduler_ticks_by_itself(schema, sched):
    now = datetime.now(UTC).replace(microsecond=0)
    scheduler.add(sched, "heartbeat", every=timedelta(seconds=1), first=now + timedelta(seconds=1),
                  on_missed="skip")
    server = scheduler.spawn(schema, name="real-clock", clock=scheduler.REAL)
    try:
        processes.wait_until(lambda: len(jobs_per_slot(sched)) >= 2, timeout=20, what="two slots on the real clock")
    finally:
        assert server.terminate() == 0
    slots = sorted(slot for _, slot in jobs_per_slot(sched))
    assert all(later - earlier >= timedelta(seconds=1) for earlier, later in zip(slots, slots[1:]))
    assert set(jobs_per_slot(sched).values()) == {1}


# -- StayHub's two jobs ----------------------------------------------------------------------------


def test_the_example_jobs_are_safe_to_run_twice(sched):
    stayhub_recurring.install(sched, date(2026, 3, 13))
    add_holds_and_invoices(sched)
    scheduler.tick(sched, at(14, 2, 0))
    jobs = queue.claim(sched, limit=10, lease_s=30)
    assert sorted(job.type for job in jobs) == ["nightly_invoices", "release_unpaid_holds"]
    for job in jobs + jobs:  # every job runs twice, as after a crash before its ack
        stayhub_recurring.handlers.get(job.type).run(job, sched)
    changes = dict(sched.execute("SELECT task, array_agg(changed ORDER BY id) FROM task_runs GROUP BY task"))
    assert changes == {"nightly_invoices": [3, 0], "release_unpaid_holds": [1, 0]}
    assert sched.execute("SELECT count(*) FROM stay_invoices").fetchone()[0] == 3
    held = sched.execute("SELECT id FROM stays WHERE status = 'held' ORDER BY id").fetchall()
    assert held == [(988,), (989,), (990,)]  # Gus's hold lapsed at 01:57 and went back on sale


@pytest.mark.slow
def test_the_scheduler_handlers_run_in_a_real_worker(schema, sched, start_workers):
    stayhub_recurring.install(sched, date(2026, 3, 13))
    add_holds_and_invoices(sched)
    scheduler.tick(sched, at(14, 2, 5))
    start_workers(1, app="course.programs.stayhub_recurring:handlers", lease_s=5, poll_interval_s=0.1)
    processes.wait_until(lambda: queue.stats(sched).depth == 0, timeout=30, what="the worker to run the jobs")
    # 02:05 (02:00 was skipped: the skip policy runs the latest due slot only) and the night's invoices
    assert sorted(sched.execute("SELECT task, changed FROM task_runs").fetchall()) == [
        ("nightly_invoices", 3), ("release_unpaid_holds", 2)]
