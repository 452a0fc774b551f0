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


# -- across the grading boundary: the connection lent to the answer in another process ---------------------
# The checks hand the answer a Watched connection through course/grading/boundary/ (lending.py), which runs
# statements of its own on it (the session's settings when lent, put back when the call returns). Those
# are not the answer's boundaries: counted, they shifted every point by one, a crash at point 1 hit the
# lender instead of the answer, and an action at point 1 ran inside lend(), under the lender's lock, where
# another session's call to the answer (12.safe_checkout's reconcile between statements) waited for it
# until the check's hang bound.

TWO_TRANSACTIONS = '''
def two_transactions(conn):
    conn.execute("INSERT INTO marks VALUES (1)")
    with conn.transaction():
        conn.execute("INSERT INTO marks VALUES (2)")
    conn.execute("INSERT INTO marks VALUES (3)")


def mark(conn, n):
    conn.execute("INSERT INTO marks VALUES (%s)", [n])
'''


@pytest.fixture
def answers():
    """The answer's side and the checks' side of the boundary, both in this process (its protocol, quickly)."""
    import socket

    from course.grading.boundary.host import AnswerSide
    from course.grading.boundary.serving import TrustedSide
    from course.grading.boundary.trusted import AnswerHost
    from course.grading.boundary.wire import Channel

    class Running:
        pid = 0

        def poll(self):
            return None

    ours, theirs = socket.socketpair()
    answer_side = AnswerSide(Channel(theirs))
    answer_side.peer.start()
    trusted = TrustedSide(Channel(ours))
    host = AnswerHost(Running(), trusted)
    host.setup("test.ipynb", ["import psycopg"])
    yield host.exercise("t.x", TWO_TRANSACTIONS, ["two_transactions", "mark"])
    trusted.peer.close()
    answer_side.peer.close()


def test_lent_across_the_boundary_only_the_answers_statements_are_counted(box, answers):
    with Watched.connect(box.conninfo, autocommit=True) as conn:
        answers["two_transactions"](conn)
        assert conn.seen == 5
    assert marks(box) == [1, 2, 3]


@pytest.mark.parametrize("point, left", [(1, []), (4, [1]), (5, [1, 2])])
def test_lent_across_the_boundary_a_crash_hits_the_answers_own_statement(box, answers, point, left):
    with Watched.connect(box.conninfo, autocommit=True) as conn:
        conn.at(point, crash_on(conn, box.conn))
        with pytest.raises(BaseException):  # noqa: B017 (Crashed, as the answer's side describes it back)
            answers["two_transactions"](conn)
        assert conn.crashed
    assert marks(box) == left


def test_lent_across_the_boundary_another_call_to_the_answer_runs_at_the_first_boundary(box, answers):
    """12.safe_checkout's 'reconcile between statements': at point 1 another thread calls the answer on a
    session of its own, and must finish before the first statement, not wait for the lender's lock."""
    import threading

    finished, during = [], []

    def meanwhile():
        def other():
            with psycopg.connect(box.conninfo, autocommit=True) as session:
                answers["mark"](session, 7)
            finished.append(True)

        thread = threading.Thread(target=other, daemon=True)
        thread.start()
        thread.join(60)  # bounds a hang only: the call takes milliseconds
        during.append(marks(box))

    with Watched.connect(box.conninfo, autocommit=True) as conn:
        conn.at(1, meanwhile)
        answers["two_transactions"](conn)
    assert finished == [True] and during == [[7]]
    assert marks(box) == [1, 2, 3, 7]
