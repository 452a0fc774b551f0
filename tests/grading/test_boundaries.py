"""course/grading/faults/boundaries.py: a connection that crashes, or lets another session act, at its k-th
statement boundary. 12.safe_checkout's verdicts rest on three things held here: the boundaries are counted
on statements and on BEGIN/COMMIT alike, a crash just before a COMMIT loses the transaction and one just
after keeps it, and after a crash nothing more reaches the server, whatever the code under test catches."""

from __future__ import annotations

import psycopg
import pytest

from course.grading.faults.boundaries import Crashed, Watched, crash_on
from course.grading.trial import Trial


@pytest.fixture
def box():
    t = Trial("99.test")
    box = t.scratch(queue_tables=False)
    box.conn.execute("CREATE TABLE marks (n int)")
    yield box
    t.close()


def two_transactions(conn) -> None:
    """Boundaries: 1 INSERT (autocommit), 2 BEGIN, 3 INSERT, 4 COMMIT, 5 INSERT."""
    conn.execute("INSERT INTO marks VALUES (1)")
    with conn.transaction():
        conn.execute("INSERT INTO marks VALUES (2)")
    conn.execute("INSERT INTO marks VALUES (3)")


def marks(box) -> list[int]:
    return [n for (n,) in box.conn.execute("SELECT n FROM marks ORDER BY n")]


def test_statements_and_transaction_commands_are_counted(box):
    with Watched.connect(box.conninfo, autocommit=True) as conn:
        two_transactions(conn)
        assert conn.seen == 5 and not conn.crashed
    assert marks(box) == [1, 2, 3]


@pytest.mark.parametrize("point, left", [(1, []), (2, [1]), (3, [1]), (4, [1]), (5, [1, 2]), (6, [1, 2, 3])])
def test_a_crash_at_each_boundary_leaves_what_was_committed_before_it(box, point, left):
    """4 is just before the COMMIT (the transaction is lost), 5 just after it (it is kept); 6 is never reached."""
    with Watched.connect(box.conninfo, autocommit=True) as conn:
        conn.at(point, crash_on(conn, box.conn))
        if point <= 5:
            with pytest.raises(Crashed):
                two_transactions(conn)
        else:
            two_transactions(conn)
        assert conn.crashed == (point <= 5)
    assert marks(box) == left


def test_code_that_catches_every_exception_still_stops_at_the_crash(box):
    def stubborn(conn):
        for n in range(1, 4):
            try:
                conn.execute("INSERT INTO marks VALUES (%s)", [n])
            except BaseException:  # noqa: BLE001 (the code under test may do this; a SIGKILL would stop it)
                continue

    with Watched.connect(box.conninfo, autocommit=True) as conn:
        conn.at(2, crash_on(conn, box.conn))
        stubborn(conn)
        assert conn.crashed
        pid = conn.info.backend_pid
    assert marks(box) == [1]
    assert box.conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone()[0] == 0


def test_another_session_acts_at_the_boundary_and_the_code_carries_on(box):
    seen = []
    with Watched.connect(box.conninfo, autocommit=True) as conn:
        conn.at(3, lambda: seen.append(marks(box)))  # just before the INSERT inside the transaction
        two_transactions(conn)
    assert seen == [[1]] and marks(box) == [1, 2, 3]


def test_a_cursor_of_its_own_is_counted_too(box):
    with Watched.connect(box.conninfo, autocommit=True) as conn:
        conn.at(2, crash_on(conn, box.conn))
        with pytest.raises((Crashed, psycopg.Error)):
            with conn.cursor() as cursor:
                cursor.execute("INSERT INTO marks VALUES (1)")
                cursor.execute("INSERT INTO marks VALUES (2)")
    assert marks(box) == [1]
