"""03.claim and 03.claim_batch beside other workers: another worker's claim between the answer's statements, a
new job committed there, another worker holding its locks at its commit or stopped after it locked a row; then,
for a race inside one statement, how the answer meets each row lock (which one it passes over, waits for, takes).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import psycopg
from psycopg import sql

from course.grading import differential as diff
from course.grading import interleave
from course.grading.checks.lab03.judge import NO_WAIT, ONCE, THOSE_JOBS, Judge, ids_of
from course.grading.checks.lab03.table import Job, Table, install
from course.grading.trial import Attempt

RACE_SLACK_S = 1.0  # runs with real commits and threads: times written and read a moment apart

# Three jobs, ids not in run_at order: job 2 is the oldest, then 1, then 3.
RACE = Table((Job(1, -3.0), Job(2, -5.0, payload={"order_id": 9813}), Job(3, -1.0, payload={"order_id": 9814})))
RACE_BATCH = replace(RACE, jobs=RACE.jobs + (Job(4, -4.0, payload={"order_id": 9815}),), limit=2)


def race(judge: Judge, box) -> tuple[diff.Finding, interleave.Told] | None:
    """The answer beside other workers, each kind of interleaving once; a finding goes to `ONCE` or `NO_WAIT`
    when jobs went twice or the answer waited, else to the rule the outcome breaks."""
    table = RACE_BATCH if judge.batch else RACE
    if judge.compare(table) is not None:  # wrong on this table alone: the search above says so, not a race
        return None
    arena = interleave.Arena(box.conn, box.connect, judge.reader, install, judge.contract)
    reference, learner = judge.reference(table), judge.learner(table)

    def yours(conn):
        return _claimed(judge.contract, learner(conn))

    def theirs(conn):
        return _claimed(judge.contract, reference(conn))

    oldest = sql.SQL("SELECT id FROM jobs WHERE id = {}").format(sql.Literal(2))
    acts = [
        (interleave.Act("worker B claimed the oldest ready jobs (with the reference claim)", theirs),) * 2,
        (interleave.Act("worker B ran your claim", yours), interleave.Act("worker B ran the reference claim", theirs)),
        (interleave.Act("a new job, due a minute ago, was committed", _new_job),) * 2,
    ]
    holds = [
        (interleave.InTransaction("another worker is part-way through claiming job 2 (the oldest): its "
                                  "transaction has locked and marked it and not yet committed", theirs),) * 2,
        (interleave.HeldAtCommit("worker B ran your claim and is committing (its locks still held)", yours),
         interleave.HeldAtCommit("worker B ran the reference claim and is committing", theirs)),
        (interleave.StoppedBeforeItWrites("worker B is running your claim: it has chosen and locked job 2 and "
                                          "not yet marked it", oldest, yours),
         interleave.StoppedBeforeItWrites("worker B is running the reference claim", oldest, theirs)),
    ]
    try:
        found = interleave.explore(arena, table, answer=learner, reference=reference, acts=acts, holds=holds,
                                   judge=lambda s, ours, allowed: _concurrently(judge, s, ours, allowed))
        # Why, from how the answer meets locked rows: for a race inside one statement, or an answer that
        # waited or failed (a race between two statements already says what came between them).
        if found and (found[0].check == NO_WAIT or (found[0].check == ONCE and not found[1].between)):
            probe = interleave.lock_probe(arena, learner, table, oldest, lambda got: 2 in ids_of(got.returned))
            found = (replace(found[0], note=_lock_note(probe, found[0])), found[1])
    finally:
        arena.close()
    return found


def _lock_note(probe: dict[str, str], finding: diff.Finding) -> str:
    """Why, from how the answer met job 2 under each row lock another session held on it."""
    twice = finding.check == ONCE
    if probe["FOR UPDATE"] == "passes over" and probe["FOR SHARE"] == "waits":
        return ("your claim does lock the job it chooses, and passes over a job another session holds FOR UPDATE; "
                "but its lock is one two sessions can hold at once (FOR SHARE or FOR KEY SHARE), so another worker's "
                "claim of the same job does not keep yours out, and yours "
                + ("then claimed it a second time" if twice else "then waited to mark it")
                + ". Choose the job FOR UPDATE SKIP LOCKED.")
    if probe["FOR KEY SHARE"] == "takes" and probe["FOR UPDATE"] == "waits":
        return ("your claim chooses its job without locking its row: it read job 2 as ready while another worker "
                "was marking it, waited for that worker, then " + ("marked job 2 a second time" if twice else "went on")
                + ". Choose the job FOR UPDATE SKIP LOCKED in the statement that marks it.")
    if probe["FOR UPDATE"] == "waits":
        return ("your claim waits for a job another session has locked instead of passing over it: with twenty "
                "workers, nineteen would queue behind the first. SKIP LOCKED passes over locked rows.")
    return finding.note or ""


def _claimed(contract, done: Attempt) -> Any:
    """What another worker's claim returned, as ids (or what it raised)."""
    if done.error:
        return interleave.Raised(done.error)
    return ids_of(contract(done.value))


def _new_job(conn: psycopg.Connection) -> str:
    conn.execute("INSERT INTO jobs (id, type, payload, run_at) OVERRIDING SYSTEM VALUE "
                 "VALUES (100, 'send_receipt', '{\"order_id\": 9900}', now() - interval '1 minute')")
    return "job 100 added"


def _concurrently(judge: Judge, table: Table, ours: diff.Outcome, allowed: list[diff.Outcome]) -> diff.Finding | None:
    taken = ids_of(ours.returned)
    others = [i for seen in ours.others if isinstance(seen, list) for i in seen]
    twice = sorted(set(taken) & set(others))
    counted = [key[0] for key, row in ours.state.get("jobs", {}).items()
               if (j := table.job(key[0])) and row["attempts"] >= j.attempts + 2]
    if twice or counted:
        job = (twice or counted)[0]
        return diff.Finding(ONCE, got=f"job {job} went to two workers (yours and worker B)",
                            expected="each job to one worker", note=_why_twice(ours))
    raised = [seen for seen in ours.others if isinstance(seen, interleave.Raised)]
    if (ours.raised or raised) and not any(theirs.raised or any(isinstance(seen, interleave.Raised)
                                                                  for seen in theirs.others) for theirs in allowed):
        who = f"yours raised {ours.raised}" if ours.raised else f"worker B, running your claim, {raised[0]}"
        return diff.Finding(NO_WAIT, got=who, expected="the reference passes over a row another worker holds, and "
                            "takes the next", note="a claim that meets another worker's row must pass over it, not "
                            "wait for it and not fail: FOR UPDATE SKIP LOCKED")
    if ours.waited and not any(theirs.waited for theirs in allowed):
        return diff.Finding(NO_WAIT, got="yours waited for the other worker's row lock",
                            expected="the reference passes over the locked row at once (SKIP LOCKED) and takes "
                                     "the next",
                            note="with twenty workers, nineteen would queue behind the first: SKIP LOCKED passes "
                                 "over locked rows")
    finding = judge.judge(table, ours, allowed, slack_s=RACE_SLACK_S)
    if finding is None or len(ours.statements) < 2:
        return finding
    between = ("another worker's claim fell between your statements, and what yours did then matches neither "
               "order of the reference's one statement (before it, or after it). ")
    if judge.batch:  # a batch made of several claims is not one set chosen at one instant
        return replace(finding, check=THOSE_JOBS, note=between + "Claim the whole batch in one statement (or "
                       "inside one transaction that locks the rows it chooses).")
    return replace(finding, note=between + (finding.note or ""))


def _why_twice(ours: diff.Outcome) -> str:
    if len(ours.statements) > 1:
        return ("the other worker took the job in the moment between your statements. Lock and mark in one "
                "statement (UPDATE jobs SET ... WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED) RETURNING ...), or "
                "run both inside one `with conn.transaction():` so the row lock lasts until the mark")
    return ("within your one statement, another worker's claim of the same row did not keep yours out: choose the "
            "job with a row lock that two workers cannot both hold (FOR UPDATE, with SKIP LOCKED)")

