"""The differential method's parts (course/grading/snapshot.py, differential.py, trial.Trial.attempt): a
schema read as plain data, a side of a comparison run and rolled back, the seeded search, the shrinker
and the verdicts. Each lab's checks are tested through their wrong and correct answers; these hold the
machinery to what those rely on."""

from __future__ import annotations

import random
import time
from datetime import datetime, timedelta, timezone
from dataclasses import dataclass, replace

import psycopg
import pytest
from psycopg import sql

from course.grading import differential as diff
from course.grading.snapshot import MISSING, At, Mismatch, Reader, in_words, mismatches
from course.grading.trial import Attempt, NotStarted, Trial


@pytest.fixture
def box():
    t = Trial("99.test")
    box = t.scratch(queue_tables=False)
    box.conn.execute("CREATE TABLE things (id int PRIMARY KEY, at timestamptz, note text, data jsonb, "
                     "took interval); CREATE TABLE loose (n int)")
    yield box
    t.close()


# -- snapshot ---------------------------------------------------------------------------------------------


def test_a_schema_is_read_as_plain_data_with_times_from_now(box):
    box.conn.execute("INSERT INTO things VALUES (1, now() - interval '2 s', 'a', '{\"k\": [1]}', '90 s'), "
                     "(2, 'infinity', NULL, 'null', NULL); INSERT INTO loose VALUES (7), (7)")
    state = Reader.of(box.conn).read(box.conn)
    one, two = state["things"][(1,)], state["things"][(2,)]
    assert -2.5 < one["at"].seconds < -1.9 and one["data"] == {"k": [1]} and one["took"] == 90.0
    assert two["at"] == At(float("inf")) and two["note"] is None
    assert len(state["loose"]) == 2  # no primary key: the same row twice is two rows


def test_a_column_named_a_moment_is_read_as_the_datetime_it_holds(box):
    """A simulated clock's moment (a slot in 2099) means itself, not seconds from now."""
    from datetime import datetime, timezone

    box.conn.execute("INSERT INTO things (id, at) VALUES (1, '2099-03-14 02:10:00+00'), (2, NULL)")
    state = Reader.of(box.conn, moments=("things.at",)).read(box.conn)
    assert state["things"][(1,)]["at"] == datetime(2099, 3, 14, 2, 10, tzinfo=timezone.utc)
    assert state["things"][(2,)]["at"] is None
    assert isinstance(Reader.of(box.conn).read(box.conn)["things"][(1,)]["at"], At)


def test_states_differ_by_row_and_column_with_times_within_a_slack():
    ours = {"t": {(1,): {"id": 1, "at": At(30.1)}, (2,): {"id": 2, "at": At(0.0)}}}
    theirs = {"t": {(1,): {"id": 1, "at": At(30.0)}, (3,): {"id": 3, "at": At(0.0)}}}
    assert mismatches(ours, theirs, slack_s=0.25) == [
        Mismatch("t", (2,), None, ours["t"][(2,)], MISSING), Mismatch("t", (3,), None, MISSING, theirs["t"][(3,)])]
    assert mismatches(ours, theirs, slack_s=0.05)[0] == Mismatch("t", (1,), "at", At(30.1), At(30.0))


def test_moments_are_told_in_words():
    assert [in_words(s) for s in (-2, 0, 30, 5400, 9000, float("inf"))] == \
        ["2 s ago", "now", "in 30 s", "in 90 min", "in 2.5 h", "never (infinity)"]


# -- one side of a comparison -----------------------------------------------------------------------------


def insert(n: int) -> sql.Composable:
    return sql.SQL("INSERT INTO things (id, at) VALUES ({}, now())").format(sql.Literal(n))


def test_a_side_runs_on_the_scenario_and_leaves_nothing_behind(box):
    reader = Reader.of(box.conn)

    def act(conn):
        due = conn.execute("SELECT count(*) FROM things WHERE at <= now()").fetchone()[0]  # now() stands still
        conn.execute("UPDATE things SET note = 'seen'")
        return Attempt(due)

    done, state = diff.in_rollback(box.conn, reader, insert(1), act)
    assert done.value == 1 and state["things"][(1,)]["note"] == "seen" and state["things"][(1,)]["at"] == At(0.0)
    assert box.conn.execute("SELECT count(*) FROM things").fetchone()[0] == 0


def test_a_failed_statement_is_read_as_what_stood_before_it(box):
    reader = Reader.of(box.conn)

    def act(conn):
        try:
            conn.execute("UPDATE things SET id = 1 / 0")
        except psycopg.Error as error:
            return Attempt(error=str(error), error_type=type(error).__name__)

    done, state = diff.in_rollback(box.conn, reader, insert(1), act)
    assert done.error_type == "DivisionByZero" and list(state["things"]) == [(1,)]


def test_an_answer_that_commits_is_read_then_cleared(box):
    reader = Reader.of(box.conn)

    def act(conn):
        conn.commit()
        return Attempt(None)

    _, state = diff.in_rollback(box.conn, reader, insert(1), act)
    assert list(state["things"]) == [(1,)] and box.conn.execute("SELECT count(*) FROM things").fetchone()[0] == 0


def test_an_answer_that_commits_the_checks_transaction_is_read_as_late_as_its_run_was_long(box):
    """Round f2 (f2c): a relay's own BEGIN ... COMMIT commits the check's transaction, scenario and all, and the
    rows are read after the run, as seconds from the read's now(): a time the scenario stored 60 s ago reads as
    61 s ago after a 1 s run. The state says how late it was read, so that a judge can allow for it."""
    reader = Reader.of(box.conn)

    def commits_after_a_second(conn):
        conn.execute("SELECT pg_sleep(1)")
        conn.commit()
        return Attempt(None)

    _, state = diff.in_rollback(box.conn, reader, insert(1), commits_after_a_second)
    assert state.lag_s >= 1.0
    _, rolled_back = diff.in_rollback(box.conn, reader, insert(1), lambda conn: Attempt(None))
    assert rolled_back.lag_s < 1.0  # read inside the scenario's own transaction: as late as its quick run


def test_an_answer_that_reads_its_own_clock_late_in_a_slow_run_writes_the_same_time(box):
    """CI12 at load 30: 04.heartbeat failed a correct answer that computes the lease's end from Python's clock,
    "in 30.3 s" against the reference's now() + 30 s, the answer having run 0.3 s after the scenario's
    transaction began. Inside the transaction too, the state says how long the run took, and the times it wrote
    from its own clock compare equal to now() + 30 s written at the run's start. (Break: read the rolled-back
    state as a plain State, and this fails.)"""
    reader = Reader.of(box.conn)

    def by_pythons_clock_after_a_slow_start(conn):
        time.sleep(1.0)  # the machine is busy: the answer runs a second after the scenario was written
        conn.execute("UPDATE things SET at = %s", [datetime.now(timezone.utc) + timedelta(seconds=30)])
        return Attempt(None)

    def by_now(conn):
        conn.execute("UPDATE things SET at = now() + interval '30 seconds'")
        return Attempt(None)

    (_, ours), (_, theirs) = (diff.in_rollback(box.conn, reader, insert(1), act)
                              for act in (by_pythons_clock_after_a_slow_start, by_now))
    assert ours.lag_s >= 1.0
    assert mismatches(ours, theirs) == []


def test_an_answer_that_cannot_run_inside_a_transaction_runs_as_its_caller_would(box):
    reader = Reader.of(box.conn)

    def act(conn):
        try:
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
                conn.execute("UPDATE things SET note = 'serializable'")
        except psycopg.Error as error:
            return Attempt(error=str(error), error_type=type(error).__name__)
        return Attempt("ok")

    done, state = diff.as_the_caller_runs_it(box.conn, reader, insert(1), act)
    assert done.value == "ok" and state["things"][(1,)]["note"] == "serializable"
    assert box.conn.execute("SELECT count(*) FROM things").fetchone()[0] == 0


def test_a_run_outside_the_checks_transaction_is_judged_with_its_own_run_time_as_slack(box):
    """The answer's now() falls inside its own run, and the read comes after it: a lease it wrote as now() + 30 s
    reads 30 s less however long it ran (29.7 s at load 40 in the lab 03 check). A pg_sleep after the write
    stands for the loaded machine, deterministically; a time off by more than the run still differs."""
    reader = Reader.of(box.conn)

    def commits_then_dawdles(seconds):
        def act(conn):
            try:
                with conn.transaction():
                    conn.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")  # not inside the check's
                    conn.execute(f"UPDATE things SET at = now() + make_interval(secs => {seconds})")
            except psycopg.Error as error:
                return Attempt(error=str(error), error_type=type(error).__name__)
            conn.execute("SELECT pg_sleep(1)")
            return Attempt("ok")
        return act

    _, reference = diff.in_rollback(box.conn, reader, insert(1),
                                    lambda conn: (conn.execute("UPDATE things SET at = now() + interval '30 s'"),
                                                  Attempt("ok"))[1])
    done, late = diff.as_the_caller_runs_it(box.conn, reader, insert(1), commits_then_dawdles(30))
    assert done.value == "ok" and late.lag_s >= 1.0
    assert late["things"][(1,)]["at"].seconds < 29.5  # read a second late
    assert mismatches(late, reference) == []
    _, wrong = diff.as_the_caller_runs_it(box.conn, reader, insert(1), commits_then_dawdles(60))
    assert [m.column for m in mismatches(wrong, reference)] == ["at"]


def test_the_door_to_learner_code_hands_back_what_it_raised():
    t = Trial("99.test")
    assert t.attempt(lambda: 1 / 0).error_type == "ZeroDivisionError"
    assert t.attempt(lambda x: x + 1, 1).value == 2
    with pytest.raises(NotStarted):
        t.attempt(lambda: (_ for _ in ()).throw(NotImplementedError()))
    assert t.not_started


# -- search, shrinking, verdicts ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Numbers:
    """A toy scenario: the 'answer' is wrong on any number above 5, and on a 3 followed by a 4."""
    values: tuple[int, ...]

    def told(self) -> str:
        return f"numbers {list(self.values)}"

    def shrinks(self):
        for index in range(len(self.values)):
            yield replace(self, values=self.values[:index] + self.values[index + 1:])
        for index, value in enumerate(self.values):
            if value > 0:
                yield replace(self, values=self.values[:index] + (value - 1,) + self.values[index + 1:])


def judge(numbers: Numbers) -> diff.Finding | None:
    if any(v > 5 for v in numbers.values):
        return diff.Finding("no number above five", got="above five", expected="five at most")
    if any(a == 3 and b == 4 for a, b in zip(numbers.values, numbers.values[1:])):
        return diff.Finding("no three then four", got="3, 4", expected="no such pair")
    return None


def draw(rng: random.Random) -> Numbers:
    return Numbers(tuple(rng.randint(0, 9) for _ in range(rng.randint(0, 8))))


def test_a_failure_shrinks_to_the_smallest_scenario_that_fails_the_same_check():
    scenario, finding = diff.smallest(Numbers((1, 9, 2, 3, 4, 8)), judge(Numbers((1, 9, 2, 3, 4, 8))), judge)
    assert scenario == Numbers((6,)) and finding.check == "no number above five"


def test_shrinking_stops_after_its_tries():
    start = Numbers((9,) * 30)
    calls = []
    diff.smallest(start, judge(start), lambda s: calls.append(s) or judge(s), tries=10)
    assert len(calls) == 10


def test_a_search_reports_every_check_once_with_its_smallest_example_and_replays_from_its_seed():
    def report(seed):
        t = Trial("99.test")
        verdicts = diff.Verdicts(t, ["no number above five", "no three then four", "never fails"])
        diff.search(verdicts, draw, judge, seed=seed, count=200)
        verdicts.report()
        return [(r.name, r.passed, r.reached, r.example) for r in t.results]

    first = report(7)
    assert first == report(7)
    assert first == [("no number above five", False, True, "numbers [6]"),
                     ("no three then four", False, True, "numbers [3, 4]"),
                     ("never fails", False, False, None)]  # after the first failure: not reached


def verdicts_of(checks, scenarios):
    t = Trial("99.test")
    verdicts = diff.Verdicts(t, checks)
    diff.search(verdicts, lambda rng: None, judge, seed=1, count=0, first=scenarios)
    verdicts.report()
    return {r.name: "✓" if r.passed else "✗" if r.reached else "·" for r in t.results}


def test_a_check_is_passed_only_when_it_comes_before_the_first_failure():
    checks = ["never fails", "no number above five", "no three then four"]  # the order judge() tries them
    # failed the second check: the first passed, the third was never judged
    assert verdicts_of(checks, [Numbers((1, 2)), Numbers((9, 3, 4))]) == {
        "never fails": "✓", "no number above five": "✗", "no three then four": "·"}
    # failed its first rule on every scenario (a stub): nothing it did is shown to hold
    assert verdicts_of(["no number above five", "no three then four", "never fails"], [Numbers((9,))]) == {
        "no number above five": "✗", "no three then four": "·", "never fails": "·"}
    # both failed: the check before them passed
    assert verdicts_of(checks, [Numbers((3, 4)), Numbers((9,))]) == {
        "never fails": "✓", "no number above five": "✗", "no three then four": "✗"}
    # nothing failed: every check passed
    assert verdicts_of(checks, [Numbers((1,)), Numbers(())]) == dict.fromkeys(checks, "✓")


def test_a_check_not_shown_is_reported_as_not_judged_unless_it_failed():
    """A check no scenario could fail, the answer having done nothing it is about (08.tick's "changes nothing
    but its own rows", for a tick that decides nothing), is not judged: a do-nothing stub passed it."""
    checks = ["never fails", "no number above five", "no three then four"]

    def judged(scenarios, unshown):
        t = Trial("99.test")
        verdicts = diff.Verdicts(t, checks)
        diff.search(verdicts, lambda rng: None, judge, seed=1, count=0, first=scenarios)
        verdicts.not_shown(unshown, "not judged: nothing to judge")
        verdicts.report()
        return {r.name: "✓" if r.passed else "✗" if r.reached else "·" for r in t.results}

    assert judged([Numbers((9, 3, 4))], "never fails") == {
        "never fails": "·", "no number above five": "✗", "no three then four": "·"}
    # a check that failed is reported failed, shown or not
    assert judged([Numbers((9, 3, 4))], "no number above five")["no number above five"] == "✗"
    assert judged([Numbers((1,))], "no three then four") == {
        "never fails": "✓", "no number above five": "✓", "no three then four": "·"}


def test_the_boundaries_given_first_are_tried_before_any_drawn_scenario():
    seen = []
    t = Trial("99.test")
    verdicts = diff.Verdicts(t, ["no number above five", "no three then four"])
    diff.search(verdicts, lambda rng: Numbers((0,)), lambda s: seen.append(s) or judge(s), seed=1, count=2,
                first=[Numbers((3, 4)), Numbers((1,))])
    assert seen[0] == Numbers((3, 4)) and seen[-3:] == [Numbers((1,)), Numbers((0,)), Numbers((0,))]  # shrinks between
    assert verdicts.failed("no three then four") and not verdicts.failed("no number above five")


def test_families_are_drawn_in_turn():
    drawn = diff.in_turn([lambda rng: "a", lambda rng: "b", lambda rng: "c"])
    assert [drawn(None) for _ in range(5)] == ["a", "b", "c", "a", "b"]


def test_an_outcome_is_allowed_only_with_the_same_story_for_the_other_sessions():
    ours = diff.Outcome(returned=True, others=("B claimed job 1",))
    before = diff.Outcome(returned=False, others=("B claimed job 1",))
    after = diff.Outcome(returned=True, others=("B found nothing",))

    def same_return(theirs):
        return None if theirs.returned == ours.returned else diff.Finding("x", got="", expected="")

    assert diff.against(ours, [before, after], same_return).check == "x"  # the return matches only the other story
    assert diff.against(ours, [replace(before, returned=True), after], same_return) is None

