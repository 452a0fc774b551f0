"""Other sessions between an answer's statements (course/grading/interleave.py): the pause before each
statement, the three kinds of adversary, lock waits seen and gone past rather than waited out, and the
probe of which row locks an answer passes over."""

from __future__ import annotations

import psycopg
import pytest
from psycopg import sql

from course.grading import interleave
from course.grading.differential import Outcome
from course.grading.snapshot import Reader
from course.grading.trial import Attempt, Trial

ROWS = sql.SQL("INSERT INTO items (id) VALUES (1), (2), (3)")


@pytest.fixture
def arena():
    t = Trial("99.test")
    box = t.scratch(queue_tables=False)
    box.conn.execute("CREATE TABLE items (id int PRIMARY KEY, taken_by text)")
    arena = interleave.Arena(box.conn, box.connect, Reader.of(box.conn), lambda scenario: ROWS, lambda value: value)
    yield arena
    arena.close()
    t.close()


class Scenario:
    def told(self):
        return "three items"


def take(lock: str):
    """An 'answer': take the first free item with the given row lock (one statement), say which."""
    def answer(conn: psycopg.Connection) -> Attempt:
        row = conn.execute(f"UPDATE items SET taken_by = 'A' WHERE id = (SELECT id FROM items WHERE taken_by IS NULL "
                           f"ORDER BY id LIMIT 1 {lock}) RETURNING id").fetchone()
        return Attempt(row and row[0])
    return answer


def read_then_take(conn: psycopg.Connection) -> Attempt:
    row = conn.execute("SELECT id FROM items WHERE taken_by IS NULL ORDER BY id LIMIT 1").fetchone()
    conn.execute("UPDATE items SET taken_by = 'A' WHERE id = %s", row)
    return Attempt(row[0])


def b_takes(conn: psycopg.Connection):
    row = conn.execute("UPDATE items SET taken_by = 'B' WHERE id = (SELECT id FROM items WHERE taken_by IS NULL "
                       "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id").fetchone()
    return row and row[0]


def test_the_pause_comes_before_each_statement_and_goes_away(arena):
    seen = []
    with interleave.statements(arena.conn, lambda n, text: seen.append((n, text))):
        arena.conn.execute("SELECT 1")
        with arena.conn.cursor() as cursor:
            cursor.execute("SELECT\n  2 -- a comment")
    arena.conn.execute("SELECT 3")
    assert seen == [(1, "SELECT 1"), (2, "SELECT 2 -- a comment")]


def test_an_act_falls_between_two_statements(arena):
    act = interleave.Act("B takes the first item", b_takes)
    got = arena.between(read_then_take, Scenario(), act, 2)
    assert got.returned == 1 and got.others == (1,)  # both took item 1: B between A's read and A's update
    assert got.statements[0].startswith("SELECT id FROM items") and got.state["items"][(1,)]["taken_by"] == "A"
    assert arena.between(read_then_take, Scenario(), act, 3) is None  # the answer has no statement 3
    before = arena.around(take("FOR UPDATE SKIP LOCKED"), Scenario(), act, first=True)
    assert (before.returned, before.others) == (2, (1,))


def test_an_answer_that_waits_for_a_hold_is_seen_waiting_and_let_through(arena):
    hold = interleave.InTransaction("another session holds item 1", lambda conn: conn.execute(
        "SELECT id FROM items WHERE id = 1 FOR UPDATE").fetchall())
    waits = arena.under(take("FOR UPDATE"), Scenario(), hold)
    skips = arena.under(take("FOR UPDATE SKIP LOCKED"), Scenario(), hold)
    assert (waits.waited, waits.returned) == (True, 1)  # released, then it took the row it waited for
    assert (skips.waited, skips.returned) == (False, 2)


def test_a_session_held_at_its_commit_keeps_its_locks_until_let_go(arena):
    held = interleave.HeldAtCommit("B takes an item and is committing", b_takes)
    unlocked = arena.under(take(""), Scenario(), held)
    locked = arena.under(take("FOR UPDATE SKIP LOCKED"), Scenario(), held)
    assert (unlocked.waited, unlocked.returned, unlocked.others) == (True, 1, (1,))  # item 1 taken twice
    assert (locked.waited, locked.returned, locked.others) == (False, 2, (1,))


def test_only_the_checks_own_sessions_count_as_keeping_an_answer_waiting(arena):
    outsider = arena.connect()
    arena.reset(Scenario())
    try:
        outsider.execute("BEGIN")
        outsider.execute("SELECT id FROM items WHERE id = 1 FOR UPDATE")
        running = interleave.Background(lambda: take("FOR UPDATE")(arena.conn))
        assert running.settle(arena.watch, arena.conn.info.backend_pid, arena.pids, timeout_s=0.5) == "running"
        assert running.settle(arena.watch, arena.conn.info.backend_pid,
                              [*arena.pids, outsider.info.backend_pid]) == "waiting"
    finally:
        outsider.execute("ROLLBACK")
        outsider.close()
    assert running.result().value == 1


@pytest.mark.parametrize("lock, passes_over", [
    ("FOR UPDATE SKIP LOCKED", {"FOR KEY SHARE", "FOR SHARE", "FOR NO KEY UPDATE", "FOR UPDATE"}),
    ("FOR NO KEY UPDATE SKIP LOCKED", {"FOR SHARE", "FOR NO KEY UPDATE", "FOR UPDATE"}),
    ("FOR KEY SHARE SKIP LOCKED", {"FOR UPDATE"}),
    ("", set()),
])
def test_the_probe_tells_which_row_locks_an_answer_passes_over(arena, lock, passes_over):
    row = sql.SQL("SELECT id FROM items WHERE id = 1")
    probe = interleave.lock_probe(arena, take(lock), Scenario(), row, lambda got: got.returned == 1)
    assert {mode for mode, what in probe.items() if what == "passes over"} == passes_over, probe
    if not lock:
        assert probe["FOR KEY SHARE"] == "takes" and probe["FOR UPDATE"] == "waits"


def test_explore_finds_the_interleaving_the_reference_does_not_allow(arena):
    act = interleave.Act("B takes the first item", b_takes)

    def judge(scenario, ours: Outcome, allowed: list[Outcome]):
        from course.grading.differential import Finding, against
        return against(ours, allowed, lambda theirs: None if ours.returned == theirs.returned
                       else Finding("takes a free item", got=str(ours.returned), expected=str(theirs.returned)))

    reference = take("FOR UPDATE SKIP LOCKED")
    assert interleave.explore(arena, Scenario(), answer=reference, reference=reference, acts=[(act, act)], holds=[],
                              judge=judge) is None
    finding, told = interleave.explore(arena, Scenario(), answer=read_then_take, reference=reference,
                                       acts=[(act, act)], holds=[], judge=judge)
    assert finding.check == "takes a free item" and told.between and "just before your statement 2" in str(told)


def test_an_answer_seen_waiting_is_told_at_which_of_its_statements(arena):
    hold = interleave.InTransaction("another session holds item 1", lambda conn: conn.execute(
        "SELECT id FROM items WHERE id = 1 FOR UPDATE").fetchall())

    def takes_two_then_all(conn):  # takes item 2 (passing over 1), then marks every free item: waits on 1
        take("FOR UPDATE SKIP LOCKED")(conn)
        conn.execute("UPDATE items SET taken_by = 'A' WHERE taken_by IS NULL")
        return Attempt(2)

    got = arena.under(takes_two_then_all, Scenario(), hold)
    assert got.waited and got.waited_at == (2, "UPDATE items SET taken_by = 'A' WHERE taken_by IS NULL")
    assert arena.under(take("FOR UPDATE"), Scenario(), hold).waited_at[0] == 1
    assert arena.under(take("FOR UPDATE SKIP LOCKED"), Scenario(), hold).waited_at is None


def test_a_kill_point_cuts_the_session_before_its_step_and_stops_the_answer(arena):
    """What committed before the kill stays, what was in the open transaction is rolled back, nothing after
    runs: as a SIGKILL of the answer's process leaves the database."""
    arena.reset(Scenario())
    conn = arena.connect()
    effects = []

    def answer(conn):
        conn.execute("UPDATE items SET taken_by = 'A' WHERE id = 1")  # autocommit: kept
        with conn.transaction():
            conn.execute("UPDATE items SET taken_by = 'A' WHERE id = 2")  # rolled back with the kill
            kill.step("an email")  # a step of the check's own (a publish, a send)
            effects.append("sent")
            conn.execute("UPDATE items SET taken_by = 'A' WHERE id = 3")

    kill = interleave.KillPoint(arena.watch, conn, 3)
    with pytest.raises(interleave.Killed), kill.watching():
        answer(conn)
    assert kill.steps == ["UPDATE items SET taken_by = 'A' WHERE id = 1",
                          "UPDATE items SET taken_by = 'A' WHERE id = 2", "an email"]
    assert effects == [] and (conn.closed or conn.broken)
    conn.close()
    assert [row["taken_by"] for _, row in sorted(arena.read()["items"].items())] == ["A", None, None]
    with pytest.raises(interleave.Killed):
        kill.step("anything after the kill")  # a dead process does nothing more
    counting = interleave.KillPoint(arena.watch, arena.conn, 0)
    with counting.watching():
        arena.conn.execute("SELECT 1")
    assert counting.steps == ["SELECT 1"] and not counting.dead
