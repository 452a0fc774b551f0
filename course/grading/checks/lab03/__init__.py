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
    verdicts.report()


@exercise_check("03.claim")
def claim_check(t: Trial, claim, seed=None):
    judged(t, claim, batch=False, seed=seed)


@exercise_check("03.claim_batch")
def claim_batch_check(t: Trial, claim_batch, seed=None):
    judged(t, claim_batch, batch=True, seed=seed)


# -- 03.quiz ----------------------------------------------------------------------------------------------


@exercise_check("03.quiz")
def quiz(t: Trial, q1, q2, q3, q4, q5):
    ask(t, "q1", q1, "b", "what SKIP LOCKED does", "what did the second connection do when the first held the row?")
    ask(t, "q2", q2, "c", "a claim with no row lock", "look again at the 'jobs claimed twice' bar of the race")
    ask(t, "q3", q3, "a", "plain FOR UPDATE with twenty workers", "which of the three waited on locks, and was it "
        "wrong or only slow?")
    ask(t, "q4", q4, "b", "a worker that crashes after its claim", "what does locked_until do once it is in the past?")
    ask(t, "q5", q5, "c", "why the reference claim moves run_at", "which rows can the claim skip by reading one "
        "index in order?")
