"""Lab 03: a queue in Postgres. The learner's claim and the reference claim run on the same jobs table,
drawn at random from every table the statement allows (other types, odd payloads, jobs due, due
exactly now, scheduled for later, leased, left by a crashed worker, attempts in the thousands, ties,
limits from 1 to more than there are jobs); then beside other workers: between the answer's
statements, held at their commit with their locks, and stopped after they locked a row.

    table.py   the lab's scenarios: a jobs table in the learner's words, and the families it is drawn from
    judge.py   03.claim and 03.claim_batch: the contract, the reference, and the first rule an outcome breaks
    race.py    the same claims beside other workers, between their statements and holding their locks
"""

from __future__ import annotations

from collections.abc import Callable

from course.grading import differential as diff
from course.grading.checks import exercise_check
from course.grading.checks.lab03.judge import BATCH_CHECKS, CLAIM_CHECKS, Judge
from course.grading.checks.lab03.race import race
from course.grading.checks.lab03.table import DEFAULT_SEED, JOBS_TABLE, SCENARIOS, families
from course.grading.checks.quiz import ask
from course.grading.snapshot import Reader
from course.grading.trial import Trial

# -- 03.claim, 03.claim_batch ---------------------------------------------------------------------------------------


# The planner statistics of a queue's table as autovacuum leaves it: analyzed after its jobs were done and
# deleted (none live, a few pages). With them PostgreSQL expects one row and joins
# `id IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)` as a nested loop that runs the sub-select again for
# each row: every run passes over the rows the UPDATE has just changed and picks further jobs, more than
# n (seen in this check's own runs once autovacuum had analyzed its table). A table never analyzed hashes
# the sub-select once and hides it. Autovacuum is off on the check's table: no plan changes mid-check.
TYPICAL_TABLE = """
INSERT INTO jobs (type, payload) SELECT 'send_receipt', jsonb_build_object('order_id', 9800 + n)
FROM generate_series(1, 16) AS n;
DELETE FROM jobs;
ANALYZE jobs;
ALTER TABLE jobs SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)"""


def _simple_queue(t: Trial):
    box = t.scratch(queue_tables=False)
    box.conn.execute(JOBS_TABLE)
    box.conn.execute(TYPICAL_TABLE)
    return box


def judged(t: Trial, answer: Callable, *, batch: bool, seed: int | None) -> None:
    t.seed = DEFAULT_SEED if seed is None else seed
    box = _simple_queue(t)
    reader = Reader.of(box.conn)
    judge = Judge(t, box.conn, reader, answer, batch)
    verdicts = diff.Verdicts(t, BATCH_CHECKS if batch else CLAIM_CHECKS)
    diff.search(verdicts, diff.in_turn(families(batch)), judge.compare, seed=t.seed, count=SCENARIOS)
    found = race(judge, box)
    if found is not None:
        finding, told = found
        verdicts.add(finding, str(told))
    verdicts.report(unshown=judge.unshown())


@exercise_check("03.claim")
def claim_check(t: Trial, claim, seed=None):
    judged(t, claim, batch=False, seed=seed)


@exercise_check("03.claim_batch")
def claim_batch_check(t: Trial, claim_batch, seed=None):
    judged(t, claim_batch, batch=True, seed=seed)


# -- 03.quiz ----------------------------------------------------------------------------------------------


@exercise_check("03.predict_read_then_mark")
def predict_read_then_mark_check(t: Trial, predict_read_then_mark):
    ask(t, "predict_read_then_mark", predict_read_then_mark, "b",
        "how many receipts order 9812's customer gets when two workers read before either marks",
        "look at what the run measured: which job did each worker read, and when was it marked?")


@exercise_check("03.predict_for_update_wait")
def predict_for_update_wait_check(t: Trial, predict_for_update_wait):
    ask(t, "predict_for_update_wait", predict_for_update_wait, "b",
        "how long B waits for A's locked row, and which job it gets",
        "look at what the run measured: did B wait, and which order did it get once A committed?")


@exercise_check("03.predict_race_waits")
def predict_race_waits_check(t: Trial, predict_race_waits):
    ask(t, "predict_race_waits", predict_race_waits, "c",
        "how many of twenty connections wait for a row lock with each claim",
        "look at what the race measured: which claims made connections wait for the head of the queue?")


@exercise_check("03.predict_batches")
def predict_batches_check(t: Trial, predict_batches):
    ask(t, "predict_batches", predict_batches, "c",
        "how much faster a drain is at 100 jobs per claim than at one",
        "look at what the drains measured: how many round trips does each batch size make for 1,500 jobs?")


@exercise_check("03.quiz")
def quiz(t: Trial, q1, q2, q3, q4, q5, q6, q7):
    ask(t, "q1", q1, "a", "what a claim with SKIP LOCKED gets while another holds the oldest job",
        "what did the second connection do when the first held the row?")
    ask(t, "q2", q2, "c", "a claim with no row lock", "look again at the 'jobs claimed twice' bar of the race")
    ask(t, "q3", q3, "b", "a worker that crashes after its claim", "what does locked_until do once it is in the past?")
    ask(t, "q4", q4, "b", "a claim that waited for a lock, under REPEATABLE READ",
        "look at the two schedules of section 2: what did B's statement do at each level once A committed?")
    ask(t, "q5", q5, "c", "why the reference claim moves run_at", "which rows can the claim skip by reading one "
        "index in order?")
    ask(t, "q6", q6, "a", "when a listening worker hears of a job enqueued in an open transaction",
        "look at what the listener heard in section 6 while the enqueue's transaction was still open")
    ask(t, "q7", q7, "c", "the notifications sent while a worker's LISTEN connection was down",
        "what did the listener that began listening after three enqueues hear in section 6?")
