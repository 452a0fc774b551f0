"""The caller around a learner's call (course/grading/caller.py): each way of holding the transaction keeps or
drops what was written inside it, says when its own COMMIT fails, and leaves the connection in autocommit
with no transaction open, whatever the call did to it."""

import psycopg
import pytest
from psycopg.pq import TransactionStatus

from course.grading.caller import CALLERS, ROLLED_BACK, run_as
from course.grading.scratch import ScratchSchema


@pytest.fixture
def box():
    box = ScratchSchema.create("test_caller", queue_tables=False)
    box.conn.execute("CREATE TABLE notes (n int)")
    yield box
    box.drop()


def count(box) -> int:
    with box.connect() as other:
        return other.execute("SELECT count(*) FROM notes").fetchone()[0]


@pytest.mark.parametrize("caller", list(CALLERS))
def test_each_caller_keeps_what_it_commits_and_drops_what_it_rolls_back(box, caller):
    failed = run_as(box.conn, caller, lambda: box.conn.execute("INSERT INTO notes VALUES (1)"))
    assert failed is None
    assert count(box) == (0 if caller in ROLLED_BACK else 1)
    assert box.conn.autocommit and box.conn.info.transaction_status == TransactionStatus.IDLE


def test_a_caller_with_autocommit_off_has_its_transaction_open_before_the_call(box):
    """So an answer's own `with conn.transaction():` is a savepoint in it, and the caller's rollback decides."""
    def call():
        with box.conn.transaction():
            box.conn.execute("INSERT INTO notes VALUES (1)")

    assert run_as(box.conn, "rollback()", call) is None
    assert count(box) == 0


def test_a_commit_the_call_broke_is_the_callers_failure_and_the_connection_is_left_clean(box):
    def call():  # a failed statement the answer swallowed: the caller's transaction can only roll back
        try:
            box.conn.execute("SELECT 1 / 0")
        except psycopg.errors.DivisionByZero:
            pass
        box.conn.execute("SELECT 1")

    failed = run_as(box.conn, "commits", call)
    assert failed.startswith("InFailedSqlTransaction")
    assert box.conn.autocommit and box.conn.info.transaction_status == TransactionStatus.IDLE


def test_a_transaction_the_call_left_open_is_rolled_back(box):
    def call():
        box.conn.autocommit = False
        box.conn.execute("INSERT INTO notes VALUES (1)")  # never committed

    assert run_as(box.conn, "autocommit", call) is None
    assert count(box) == 0 and box.conn.autocommit
