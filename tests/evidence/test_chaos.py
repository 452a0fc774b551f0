"""The chaos soak, short: real worker processes SIGKILLed at random and a PostgreSQL restarted under them,
on a server of its own (the shared one is never restarted). Plus the soak's checks on made-up states,
to show that each one fails when it should, and the rule that keeps poison jobs at attempts = max.
"""

import os
import random
import time

import pytest

from course.evidence import chaos
from course.core import queue


@pytest.mark.slow
def test_a_short_soak_loses_nothing_and_runs_every_effect_once():
    seed = int(os.environ.get("CHAOS_SEED", random.randrange(10**6)))
    config = chaos.Config(jobs=1000, workers=4, kills=10, restarts=("fast",), seed=seed, deadline_s=100)
    report = chaos.run_soak(config, log=lambda line: None)
    summary = "\n".join(report.lines()) + f"\n(rerun: CHAOS_SEED={seed})"
    assert report.passed, summary
    assert round(config.jobs * config.poison_share) >= len(chaos.POISONS), "every kind of poison must be in it"
    assert report.faults.kills >= 10 and [mode for mode, _ in report.faults.restarts] == ["fast"], summary
    assert report.faults.idle_restart and report.faults.idle_restart[0] == "fast", summary
    assert {check.what for check in report.checks if check.ok} >= {
        "jobs lost (no effect, not poison)", "duplicate effects", "jobs left in the queue",
        "poison jobs dead-lettered with attempts = max", "one-attempt jobs failed after the idle restart"}, summary


def test_the_soak_deadline_bounds_a_hang_and_stretches_with_the_load(monkeypatch):
    # deadline_s is seconds on an idle machine: a loaded one (patience > 1) waits longer before it gives
    # up, and a soak past even the stretched bound still stops, saying where it was.
    from course.infra import processes

    soak = chaos.Soak(chaos.Config(deadline_s=0.05), server=None, log=lambda line: None)
    time.sleep(0.1)
    monkeypatch.setattr(processes, "patience", lambda: 1000.0)
    soak.check_deadline("the drain")
    monkeypatch.setattr(processes, "patience", lambda: 1.0)
    with pytest.raises(TimeoutError, match=r"ran out of time, 0.05 s, during the drain"):
        soak.check_deadline("the drain")


# -- the checks themselves --------------------------------------------------------------------------


@pytest.fixture
def soak_tables(conn):
    conn.execute(chaos.TABLES)
    conn.execute("INSERT INTO chaos_expected VALUES ('effect:1', false), ('effect:2', false), ('poison:3', true)")
    conn.execute("INSERT INTO chaos_effects VALUES ('effect:1', 1), ('effect:2', 2)")
    conn.execute("INSERT INTO chaos_executions VALUES ('effect:1', 1), ('effect:1', 2), ('effect:2', 1)")
    conn.execute(f"""INSERT INTO dead_jobs (id, queue, type, payload, priority, attempts, max_attempts, created_at,
                                            reason)
                     VALUES (3, 'default', 'poison', '{{}}', 0, {chaos.POISON_MAX_ATTEMPTS},
                             {chaos.POISON_MAX_ATTEMPTS}, now(), 'max_attempts')""")
    return conn


def failed(conn) -> set[str]:
    return {check.what for check in chaos.verify(conn) if check.ok is False}


def test_the_checks_pass_on_a_clean_end_state_and_count_reruns(soak_tables):
    assert failed(soak_tables) == set()
    reruns = {check.what: check.value for check in chaos.verify(soak_tables)}["raw executions above one per job"]
    assert reruns == 1


@pytest.mark.parametrize("break_it, check", [
    ("DELETE FROM chaos_effects WHERE key = 'effect:2'", "jobs lost (no effect, not poison)"),
    ("INSERT INTO chaos_effects VALUES ('effect:1', 1)", "duplicate effects"),
    ("UPDATE dead_jobs SET attempts = 2", "poison jobs dead-lettered with attempts = max"),
    ("UPDATE dead_jobs SET type = 'effect'", "other jobs in the dead-letter table"),
    ("INSERT INTO jobs (type) VALUES ('effect')", "jobs left in the queue"),
    (f"""INSERT INTO dead_jobs (id, queue, type, payload, priority, attempts, max_attempts, created_at, reason, error)
         VALUES (4, 'default', '{chaos.AFTER_RESTART}', '{{}}', 0, 1, 1, now(), 'max_attempts',
                 'AdminShutdown: terminating connection due to administrator command')""",
     "one-attempt jobs failed after the idle restart"),
])
def test_each_check_fails_when_its_invariant_is_broken(soak_tables, break_it, check):
    soak_tables.execute(break_it)
    assert check in failed(soak_tables)


def test_a_job_after_the_idle_restart_whose_lease_ran_out_is_shown_not_judged(soak_tables):
    """Nothing is killed after the idle restart; a one-attempt job is buried with LAST_ATTEMPT_LOST only when
    its worker stalled for a whole lease, which a loaded machine may do and the restart does not cause."""
    soak_tables.execute(f"""INSERT INTO dead_jobs (id, queue, type, payload, priority, attempts, max_attempts,
                                                   created_at, reason, error)
                           VALUES (4, 'default', '{chaos.AFTER_RESTART}', '{{}}', 0, 1, 1, now(), 'max_attempts',
                                   %s)""", [queue.LAST_ATTEMPT_LOST])
    assert failed(soak_tables) == set()
    shown = {check.what: check for check in chaos.verify(soak_tables)}["  ... lease ran out (a stalled worker)"]
    assert (shown.value, shown.ok) == (1, None)


# -- the rule the poison check depends on -------------------------------------------------------------


def test_a_job_whose_worker_dies_on_its_last_attempt_is_dead_lettered_not_run_again(conn):
    job_id = queue.enqueue(conn, "render_invoice", {"booking_id": 7}, max_attempts=2)
    for attempt in (1, 2):
        job = queue.claim_one(conn, lease_s=0.2)
        assert (job.id, job.attempts) == (job_id, attempt)
        time.sleep(0.5)  # the worker "dies": nobody acks, the lease runs out
    assert queue.claim_one(conn) is None, "two runs were allowed; a third must not start"
    [dead] = queue.dead_jobs(conn)
    assert (dead.id, dead.reason, dead.attempts, dead.max_attempts) == (job_id, "max_attempts", 2, 2)
    assert "never reported back" in dead.error
    assert conn.execute("SELECT count(*) FROM jobs").fetchone()[0] == 0


def test_a_spent_job_does_not_hide_the_runnable_ones_behind_it(conn):
    spent = queue.enqueue(conn, "render_invoice", {"n": 1}, max_attempts=1, priority=5)
    assert queue.claim_one(conn, lease_s=0.2).id == spent
    time.sleep(0.5)
    waiting = queue.enqueue(conn, "render_invoice", {"n": 2})
    assert queue.claim_one(conn).id == waiting
    assert [d.id for d in queue.dead_jobs(conn)] == [spent]
