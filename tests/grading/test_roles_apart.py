"""Two notebooks graded at once share one PostgreSQL server, each as a role of its own (roles.py), and each
in a database of its own: what one does with LISTEN/NOTIFY, advisory locks or its tables never reaches the
other's run. One attack a test, a notebook's role against a classmate's; each shows first that the same
act inside one database does reach (so the test can fail)."""

from __future__ import annotations

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from course.grading import roles


@pytest.fixture
def classmates(database):
    made = roles.Roles(share=20)
    pair = [made.create() for _ in range(2)]
    try:
        yield made, pair
    finally:
        for role, _ in pair:
            made.drop(role)


def _notified(listener: psycopg.Connection) -> list[str]:
    return [n.payload for n in listener.notifies(timeout=1, stop_after=1)]


def test_each_notebook_has_a_database_of_its_own(classmates):
    made, [(mine, my_info), (theirs, their_info)] = classmates
    assert made.own_databases, "the course's user may create databases here: each role gets one"
    assert {conninfo_to_dict(my_info)["dbname"], conninfo_to_dict(their_info)["dbname"]} == {mine, theirs}


def test_a_classmates_notify_is_not_heard(classmates):
    _, [(_, mine), (_, theirs)] = classmates
    with psycopg.connect(mine, autocommit=True) as listener, psycopg.connect(mine, autocommit=True) as me, \
            psycopg.connect(theirs, autocommit=True) as classmate:
        listener.execute("LISTEN course_jobs")
        me.execute("NOTIFY course_jobs, 'mine'")
        assert _notified(listener) == ["mine"]  # the act reaches, within one database
        classmate.execute("NOTIFY course_jobs, 'forged'")
        assert _notified(listener) == []


def test_a_classmates_advisory_lock_holds_nothing_of_mine(classmates):
    _, [(_, mine), (_, theirs)] = classmates
    with psycopg.connect(mine, autocommit=True) as me, psycopg.connect(mine, autocommit=True) as my_other, \
            psycopg.connect(theirs, autocommit=True) as classmate:
        me.execute("SELECT pg_advisory_lock(8)")  # say, the key a scheduler's leader takes
        assert my_other.execute("SELECT pg_try_advisory_lock(8)").fetchone()[0] is False  # it holds, within one
        classmate.execute("SELECT pg_advisory_lock(9)")
        assert classmate.execute("SELECT pg_try_advisory_lock(8)").fetchone()[0] is True
        assert my_other.execute("SELECT pg_try_advisory_lock(9)").fetchone()[0] is True


def test_a_classmate_cannot_log_in_to_my_database(classmates):
    _, [(mine, my_info), (_, their_info)] = classmates
    with pytest.raises(psycopg.OperationalError, match="permission denied"):
        psycopg.connect(make_conninfo(their_info, dbname=mine)).close()


def test_a_classmates_tables_and_statements_are_out_of_sight(classmates):
    _, [(mine, my_info), (_, their_info)] = classmates
    with psycopg.connect(my_info, autocommit=True) as me, psycopg.connect(their_info, autocommit=True) as classmate:
        me.execute("CREATE SCHEMA lab08")
        me.execute("CREATE TABLE lab08.jobs (id int)")
        me.execute("SELECT pg_sleep(0) /* my answer */")
        assert classmate.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'lab08'").fetchone()[0] == 0
        seen = classmate.execute("SELECT query FROM pg_stat_activity WHERE usename = %s", [mine]).fetchall()
        assert seen and all("my answer" not in (q or "") for (q,) in seen), seen


def test_a_dropped_role_takes_its_database(database):
    made = roles.Roles(share=20)
    role, info = made.create()
    with psycopg.connect(info, autocommit=True) as conn:  # left open: the drop ends it
        conn.execute("CREATE SCHEMA left_here")
        made.drop(role)
    from course.infra import db

    with db.connect() as conn:
        assert conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s", [role]).fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM pg_roles WHERE rolname = %s", [role]).fetchone()[0] == 0
