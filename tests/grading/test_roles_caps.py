"""A notebook's database role is bounded in time as well as in connections and disk: its statements, lock
waits and idle transactions end by the role's own settings, and the grader's watch ends a session that
set them off; a notebook that fills the server's NOTIFY queue (a listener idle in a transaction holds its
tail, for every database on the server) has that transaction ended long before the queue is full.

The bounds were chosen from a grade of every lab's solution (labs 00-13) with pg_stat_activity sampled
every 0.5 s: the longest statement, lock wait and idle transaction any role made then is far below them
(the figures are in the commit that set them)."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from course.grading import roles
from course.infra import db, processes


@pytest.fixture
def role(database):
    made = roles.Roles(share=20)
    role, conninfo = made.create()
    try:
        yield made, role, conninfo
    finally:
        made.drop(role)


def test_a_roles_sessions_start_with_the_bounds(role):
    _, _, conninfo = role
    with psycopg.connect(conninfo) as conn:
        for setting, seconds in roles.SESSION_BOUNDS_S.items():
            value = conn.execute("SELECT setting::int FROM pg_settings WHERE name = %s", [setting]).fetchone()[0]
            assert value == seconds * 1000, setting


def wait_until(condition, timeout_s: float = 120.0) -> bool:
    bound = processes.HangBound(timeout_s)  # bounds a hang only: stretched with the machine's load
    while not bound.passed():
        if condition():
            return True
        time.sleep(0.2)
    return False


def test_a_session_that_set_its_bounds_off_is_ended_by_the_watch(role):
    made, name, conninfo = role
    idle = psycopg.connect(conninfo)
    idle.execute("SET idle_in_transaction_session_timeout = 0")
    idle.execute("SELECT 1")  # a transaction, left open
    spinning = psycopg.connect(conninfo, autocommit=True)
    spinning.execute("SET statement_timeout = 0")
    ran: list[BaseException] = []

    def spin():
        try:
            spinning.execute("SELECT pg_sleep(600)")
        except psycopg.Error as error:
            ran.append(error)

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    with made.watched(name, bounds_s={"statement_timeout": 1, "idle_in_transaction_session_timeout": 1}) as watch:
        assert wait_until(lambda: len(watch.overstayed) >= 2), watch.overstayed
    thread.join(60)
    assert ran and isinstance(ran[0], psycopg.OperationalError)
    with pytest.raises(psycopg.OperationalError):
        idle.execute("SELECT 1")
    assert any("idle in transaction" in said for said in watch.overstayed)
    assert any("active" in said for said in watch.overstayed)
    idle.close()
    spinning.close()


def test_a_listener_holding_the_notify_queue_is_ended_before_it_fills(role, monkeypatch):
    """One session listens and leaves its transaction open, another notifies as fast as it can: the watch
    ends the holder once the queue passes its share (here 0.1 %, 8 MiB), and the queue empties."""
    made, name, conninfo = role
    monkeypatch.setattr(roles, "NOTIFY_QUEUE_SHARE", 0.001)
    monkeypatch.setattr(roles, "HOLDING_S", 1)
    holder = psycopg.connect(conninfo, autocommit=True)
    holder.execute("SET idle_in_transaction_session_timeout = 0")
    holder.execute("LISTEN course_fill")
    holder.execute("BEGIN")
    holder.execute("SELECT 1")
    with db.connect() as watch_conn, psycopg.connect(conninfo, autocommit=True) as notifier, \
            made.watched(name) as watch:
        watch_conn.autocommit = True
        usage = lambda: watch_conn.execute("SELECT pg_notification_queue_usage()").fetchone()[0]  # noqa: E731
        batch = 0
        while usage() < 0.002:  # twice the share (16 MiB), and no more: other graders on this server watch it too
            notifier.execute("SELECT pg_notify('course_fill', %s || i::text || repeat('x', 7900)) "
                             "FROM generate_series(1, 500) i", [str(batch)])
            batch += 1
        assert wait_until(lambda: bool(watch.overstayed)), "the holder was never ended"
        assert "NOTIFY queue" in watch.overstayed[0], watch.overstayed
        assert wait_until(lambda: usage() < 0.001, 60)
    with pytest.raises(psycopg.OperationalError):
        holder.execute("SELECT 1")
    holder.close()


def test_a_roles_sessions_write_nothing_it_chooses_into_the_servers_log(role):
    """hostile3, attack 12: a notebook's RAISE WARNING of 1 MB, 256 times, wrote 256 MB into the server's log
    (one file, no rotation), and a failing statement is logged with its text: a disk no bound watched."""
    from pathlib import Path

    _, _, conninfo = role
    with db.connect() as conn:
        log = Path(conn.execute("SELECT current_setting('data_directory')").fetchone()[0]).parent / "pg.log"
    if not log.exists():
        pytest.skip("the server's log is not the embedded server's pg.log here")
    notebook, course = f"notebook-{time.monotonic_ns()}", f"course-{time.monotonic_ns()}"
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.add_notice_handler(lambda notice: None)
        conn.execute(f"DO $$ BEGIN RAISE WARNING '{notebook} warning'; END $$")
        with pytest.raises(psycopg.errors.UndefinedTable):
            conn.execute(f"SELECT 1 FROM no_such_table_{notebook.replace('-', '_')}")
    with db.connect() as conn:  # the course's own session still logs as the server says: the log is this one
        conn.autocommit = True
        conn.add_notice_handler(lambda notice: None)
        conn.execute(f"DO $$ BEGIN RAISE WARNING '{course}'; END $$")
    assert wait_until(lambda: course in log.read_text(errors="replace"), 60)
    text = log.read_text(errors="replace")
    assert notebook not in text and notebook.replace("-", "_") not in text
