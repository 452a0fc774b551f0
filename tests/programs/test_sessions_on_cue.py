"""course/programs/sessions_on_cue.py: statements of several sessions run in a chosen order, a waiting step
noticed as waiting, and what each statement did once the lock it waited for was released."""

from __future__ import annotations

import pytest

from course.errors import InvalidArgument
from course.infra import db
from course.programs import sessions_on_cue

CLAIM = ("UPDATE jobs SET taken = true WHERE id = (SELECT id FROM jobs WHERE NOT taken ORDER BY id LIMIT 1 "
         "FOR UPDATE) RETURNING id")


@pytest.fixture
def jobs(conn):
    conn.execute("DROP TABLE IF EXISTS jobs, dead_jobs")
    conn.execute("CREATE TABLE jobs (id int PRIMARY KEY, taken boolean NOT NULL DEFAULT false)")
    conn.execute("INSERT INTO jobs (id) VALUES (1), (2), (3)")
    return conn


def _claims(schema, level):
    return sessions_on_cue.run(db.conninfo(schema), [("A", CLAIM), ("B", CLAIM), ("A", "COMMIT"), ("B", "COMMIT")],
                          isolation={"B": level})


def test_under_read_committed_a_claim_that_waited_rechecks_the_row_and_takes_the_next(jobs, schema):
    a, b, *_ = _claims(schema, "read committed")
    assert (a.rows, a.waited) == ([(1,)], False)
    assert (b.rows, b.waited, b.blocked_by, b.error) == ([(2,)], True, ["A"], None)


def test_under_repeatable_read_the_same_claim_fails_to_serialize(jobs, schema):
    steps = _claims(schema, "repeatable read")
    assert steps[1].waited and steps[1].error.startswith("SerializationFailure")
    assert steps[3].skipped  # its transaction had failed: the COMMIT is not run
    assert jobs.execute("SELECT count(*) FROM jobs WHERE taken").fetchone()[0] == 1


def test_a_chain_of_waits_names_who_waits_for_whom(jobs, schema):
    steps = sessions_on_cue.run(db.conninfo(schema), [
        ("report", "SELECT count(*) FROM jobs"),               # idle in transaction, holding ACCESS SHARE
        ("deploy", "ALTER TABLE jobs ADD COLUMN note text"),   # needs ACCESS EXCLUSIVE: waits
        ("worker", CLAIM),                                     # waits behind the ALTER in the lock queue
        ("report", "COMMIT"), ("deploy", "COMMIT"), ("worker", "COMMIT")])
    assert [s.blocked_by for s in steps[1:3]] == [["report"], ["deploy"]]
    assert steps[2].rows == [(1,)] and "waited for deploy" in sessions_on_cue.table(steps)


def test_steps_that_do_not_wait_run_in_the_order_given(jobs, schema):
    steps = sessions_on_cue.run(db.conninfo(schema), [
        ("A", "SELECT count(*) FROM jobs WHERE NOT taken"), ("B", "SELECT count(*) FROM jobs WHERE NOT taken"),
        ("A", "UPDATE jobs SET taken = true WHERE id = 1"), ("A", "COMMIT"),
        ("B", "UPDATE jobs SET taken = true WHERE id = 2"), ("B", "COMMIT")])
    assert [s.waited for s in steps] == [False] * 6
    assert steps[0].rows == steps[1].rows == [(3,)]
    assert jobs.execute("SELECT count(*) FROM jobs WHERE taken").fetchone()[0] == 2


def test_an_unknown_isolation_level_is_refused(schema):
    with pytest.raises(InvalidArgument, match="repeatable read"):
        sessions_on_cue.run(db.conninfo(schema), [("A", "SELECT 1")], isolation={"A": "snapshot"})


def test_a_schedule_that_never_releases_a_lock_times_out(jobs, schema, monkeypatch):
    monkeypatch.setattr(sessions_on_cue, "WAIT_TIMEOUT_S", 1.0)
    with pytest.raises(TimeoutError, match="never releases"):
        sessions_on_cue.run(db.conninfo(schema), [("A", CLAIM), ("B", CLAIM)])
