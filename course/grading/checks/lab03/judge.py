"""03.claim and 03.claim_batch, judged: the learner's claim and the reference claim run on one table (table.py),
what each returned read in the contract's terms, and the first rule the learner's outcome breaks named, its
cause found by experiment. claim and claim_batch are judged alike; `batch` says which.

What the rules leave free is not compared: which of two jobs with the same run_at goes first (the reference is
run with the ties broken as the learner's answer broke them), the order of a batch's rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import psycopg

from course.grading import differential as diff
from course.grading.checks.lab03.table import Job, Table, install
from course.grading.snapshot import MISSING, At, Reader, in_words, mismatches
from course.grading.trial import Attempt, Trial, short


# The reference answers: the solution's statements. Each is one statement, so no other session can act
# between two of its steps; the adversaries (race.py) compare an answer with it. Each runs its locking
# sub-select once: `id = (...)` and `= ANY(ARRAY(...))` are computed before the UPDATE scans (an InitPlan),
# whereas `id IN (...)` may be joined as a nested loop that runs the sub-select again for every row, and
# each run, passing over the rows the UPDATE has just changed, picks further jobs: more than LIMIT.
READY = "run_at <= now() AND (locked_until IS NULL OR locked_until < now())"
REFERENCE_CLAIM = f"""
UPDATE jobs SET locked_until = now() + make_interval(secs => %(lease_s)s), attempts = attempts + 1
WHERE id = (SELECT id FROM jobs WHERE {READY} ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING id, type, payload"""
REFERENCE_BATCH = f"""
UPDATE jobs SET locked_until = now() + make_interval(secs => %(lease_s)s), attempts = attempts + 1
WHERE id = ANY(ARRAY(SELECT id FROM jobs WHERE {READY} ORDER BY run_at LIMIT %(limit)s FOR UPDATE SKIP LOCKED))
RETURNING id, type, payload"""


# -- what an answer returned, in the contract's terms ---------------------------------------------------------


@dataclass(frozen=True)
class Odd:
    """A value that is not what the contract asks for, kept as it was shown."""
    shown: str

    def __str__(self) -> str:
        return self.shown


def as_row(value: Any) -> tuple | None | Odd:
    """(id, type, payload) from a row: a tuple or list (more columns allowed after those three), or a dict
    with those keys; None stays None; anything else is Odd."""
    if value is None:
        return None
    if isinstance(value, Mapping) and {"id", "type", "payload"} <= set(value):
        return (value["id"], value["type"], value["payload"])
    if isinstance(value, (tuple, list)) and len(value) >= 3 and type(value[0]) is int:
        return (value[0], value[1], value[2])
    return Odd(short(value))


def as_rows(value: Any) -> tuple | None | Odd:
    """The rows of a batch, as a tuple in id order (the order of a batch is free)."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        return Odd(short(value))
    rows = [as_row(row) for row in value]
    if any(row is None or isinstance(row, Odd) for row in rows):
        return Odd(short(value))
    return tuple(sorted(rows, key=lambda row: row[0]))


def ids_of(returned) -> list:
    if returned is None or isinstance(returned, Odd):
        return []
    rows = [returned] if returned and not isinstance(returned[0], tuple) else returned
    return [row[0] for row in rows]


def shown_ids(ids: list) -> str:
    return "nothing" if not ids else ("job " + str(ids[0]) if len(ids) == 1 else
                                      "jobs " + ", ".join(map(str, sorted(ids))))



# -- the checks, by rule (labs.toml names each) ----------------------------------------------------------------

RESCANNED = ("If your statement chooses with `WHERE id IN (SELECT ... LIMIT ... FOR UPDATE SKIP LOCKED)`, or joins "
             "such a sub-select (`UPDATE jobs ... FROM (SELECT ...) AS pick`): PostgreSQL "
             "may run that sub-select again for every row it scans (on a table like a real queue's, it does), and "
             "each run passes over the rows just changed and picks further jobs. `id = (SELECT ...)` for one job, "
             "`id = ANY(ARRAY(SELECT ...))` or a CTE (`WITH pick AS (...)`) for several, run the sub-select once.")

NONE_WHEN_EMPTY = "returns None when no job is ready"
EMPTY_LIST = "returns an empty list when no job is ready"
ROW = "returns the claimed job as a row (id, type, payload)"
ROWS = "returns a list of rows (id, type, payload)"
OLDEST = "takes the oldest ready job first (the smallest run_at), whatever its type"
OLDEST_BATCH = "returns up to `limit` jobs, the oldest ready ones (smallest run_at), whatever their type"
FUTURE = "leaves a job whose run_at is still in the future"
BOUNDARY = "a job due exactly now (run_at = now(), the boundary) is claimed"
LEASED = "passes over a job whose lease has not run out"
EXPIRED = "claims again a job whose lease ran out (its worker crashed)"
LEASE = "hides the job for lease_s seconds: locked_until = now() + lease_s"
ATTEMPT = "counts the attempt: attempts goes up by one"
BATCH_MARK = "each claimed job: attempts + 1 and locked_until = now() + lease_s"
THAT_JOB = "changes nothing but the claimed job's locked_until and attempts"
THOSE_JOBS = "claims no more jobs than it returns, and changes nothing else"
NO_WAIT = "does not wait for a row another worker is claiming"
ONCE = "no job is claimed twice, however other workers' claims fall between its steps"

NEVER_RETURNED = ("not judged: your claim returned no job on any table, so returning nothing when no job is ready "
                  "shows nothing yet (a claim that does nothing does the same)")

CLAIM_CHECKS = (NONE_WHEN_EMPTY, ROW, OLDEST, FUTURE, BOUNDARY, LEASED, EXPIRED, LEASE, ATTEMPT, THAT_JOB,
                NO_WAIT, ONCE)
BATCH_CHECKS = (EMPTY_LIST, ROWS, OLDEST_BATCH, FUTURE, BOUNDARY, LEASED, EXPIRED, BATCH_MARK, THOSE_JOBS,
                NO_WAIT, ONCE)



class Judge:
    """Runs an answer and the reference on one table and names the first rule the answer's outcome breaks.

    claim and claim_batch are judged alike; `batch` says which. A difference in which jobs were taken is
    explained by experiment: if the answer leaves a job due exactly now even when it is alone in the table,
    and the difference disappears once every such job is made due a millisecond ago, the boundary was the
    cause; likewise a ran-out lease (the crashed worker's job); else the answer chooses differently
    (another order, a type it leaves, a limit of its own)."""

    def __init__(self, t: Trial, conn: psycopg.Connection, reader: Reader, answer: Callable, batch: bool):
        self.t, self.conn, self.reader, self.answer, self.batch = t, conn, reader, answer, batch
        self.contract = as_rows if batch else as_row
        self.returned_a_job = False  # whether the answer ever returned a claimed job (see unshown())

    def unshown(self) -> dict[str, str]:
        """The checks a claim that never returned a job has not shown: returning None (or []) when nothing is
        ready, and the row's shape, are what a claim that does nothing does too."""
        if self.returned_a_job:
            return {}
        return {name: NEVER_RETURNED for name in ((EMPTY_LIST, ROWS) if self.batch else (NONE_WHEN_EMPTY, ROW))}

    def learner(self, table: Table) -> Callable[[psycopg.Connection], Attempt]:
        if self.batch:
            return lambda conn: self.t.attempt(self.answer, conn, table.limit, table.lease_s)
        return lambda conn: self.t.attempt(self.answer, conn, table.lease_s)

    @staticmethod
    def reference(table: Table) -> Callable[[psycopg.Connection], Attempt]:
        statement, params = ((REFERENCE_BATCH, {"lease_s": table.lease_s, "limit": table.limit}) if table.limit
                             else (REFERENCE_CLAIM, {"lease_s": table.lease_s}))

        def run(conn):
            cursor = conn.execute(statement, params)
            return Attempt(value=cursor.fetchall() if table.limit else cursor.fetchone())
        return run

    def run(self, table: Table, answer: Callable[[psycopg.Connection], Attempt]) -> diff.Outcome:
        done, state = diff.as_the_caller_runs_it(self.conn, self.reader, install(table), answer)
        return diff.Outcome(returned=None if done.error else self.contract(done.value), raised=done.error, state=state)

    def compare(self, table: Table) -> diff.Finding | None:
        ours = self.run(table, self.learner(table))
        self.returned_a_job = self.returned_a_job or bool(ids_of(ours.returned))
        claimed = set(ids_of(ours.returned)) | {key[0] for key, row in ours.state.get("jobs", {}).items()
                                              if (j := table.job(key[0])) and row["attempts"] != j.attempts}
        theirs = self.run(table.as_yours(claimed), self.reference(table))
        return self.judge(table, ours, [theirs])

    # -- judging ---------------------------------------------------------------------------------------------

    def judge(self, table: Table, ours: diff.Outcome, allowed: list[diff.Outcome], *,
              slack_s: float = 0.25) -> diff.Finding | None:
        """None if the outcome is one of the allowed ones (the reference's); else the first rule it breaks
        (diff.against says against which). Times may differ by slack_s."""
        finding = diff.against(ours, allowed, lambda theirs: self._against(table, ours, theirs, slack_s))
        if finding is not None and not finding.check:  # the same table, but worker B claimed something else
            return replace(finding, check=ONCE)
        return finding

    def _against(self, table: Table, ours: diff.Outcome, theirs: diff.Outcome, slack_s: float) -> diff.Finding | None:
        raised = f"yours raised {ours.raised}" if ours.raised else None
        mine, ref = ours.returned, theirs.returned
        if raised and not ids_of(ref):
            return diff.Finding(EMPTY_LIST if self.batch else NONE_WHEN_EMPTY, got="an exception",
                                expected=short(ref), note=raised)
        if isinstance(mine, Odd) or (ours.raised is None and self._shape_differs(mine, ref)):
            empty = not ids_of(ref)
            name = (EMPTY_LIST if self.batch else NONE_WHEN_EMPTY) if empty else (ROWS if self.batch else ROW)
            return diff.Finding(name, got=str(mine) if not isinstance(mine, tuple) else short(mine),
                                expected=short(ref), note=self._row_note(mine, ref))
        taken, wanted = ids_of(mine), ids_of(ref)
        if sorted(taken) != sorted(wanted):
            return self._which(table, ours, taken, wanted, raised)
        if mine != ref and ours.raised is None:
            return diff.Finding(ROWS if self.batch else ROW, got=short(mine), expected=short(ref),
                                note="the row's type and payload are the job's own, as stored")
        return self._marks(table, ours, theirs, taken, raised, slack_s)

    def _shape_differs(self, mine, ref) -> bool:
        if self.batch:
            return (mine is None) != (ref is None)
        return mine is not None and ref is not None and len(mine) != len(ref)

    @staticmethod
    def _row_note(mine, ref) -> str | None:
        if isinstance(mine, Odd) and str(mine).startswith("[") and ref is None:
            return "nothing claimed is None, not an empty list (fetchone() gives None when no row came back)"
        if isinstance(mine, Odd) and ref == ():
            return "nothing claimed is an empty list, []: fetchall() gives one"
        if isinstance(mine, Odd):
            return "return the row RETURNING id, type, payload gives back: (id, type, payload)"
        return None

    def _which(self, table: Table, ours: diff.Outcome, taken: list, wanted: list, raised: str | None) -> diff.Finding:
        got, expected = f"yours claimed {shown_ids(taken)}", f"the reference claims {shown_ids(wanted)}"
        if self.batch and len(taken) > table.limit:
            return diff.Finding(OLDEST_BATCH, got=got, expected=expected,
                                note=f"at most limit = {table.limit} jobs. {RESCANNED}")
        for job_id in taken:
            job = table.job(job_id)
            if job is None:  # a job another session added while the answer ran
                continue
            if job.run_at > 0 and job_id not in wanted:
                return diff.Finding(FUTURE, got=got, expected=expected, note=(
                    f"job {job_id} is scheduled {in_words(job.run_at)}: a job with run_at in the future is a retry's "
                    "backoff or a delayed job, not ready yet"))
            if job.leased and job_id not in wanted:
                return diff.Finding(LEASED, got=got, expected=expected, note=(
                    f"job {job_id}'s lease ends {in_words(job.locked_until)}: another worker holds it until then"))
        missed = [table.job(i) for i in wanted if i not in taken and table.job(i) is not None]
        # The cause, by experiment: the difference disappears when every job due exactly now is made due a
        # millisecond ago (the boundary), or when every ran-out lease is cleared (a crashed worker's job).
        boundary = next((j for j in missed if j.run_at == 0), None)
        if boundary and self._left_alone(table, boundary) and \
                self._gone_when(table, lambda j: replace(j, run_at=j.run_at or -0.001)):
            job = boundary
            return diff.Finding(BOUNDARY, got=got, expected=expected, note=raised or (
                f"job {job.id} has run_at = now(): due means run_at <= now(), not <"))
        crashed = next((j for j in missed if j.ran_out), None)
        if crashed and self._left_alone(table, crashed) and \
                self._gone_when(table, lambda j: replace(j, locked_until=None) if j.ran_out else j):
            job = crashed
            return diff.Finding(EXPIRED, got=got, expected=expected, note=raised or (
                f"job {job.id}'s locked_until is in the past, {in_words(job.locked_until)}: its worker died "
                "and the job is ready again (the same job as a day-one job due then, one attempt older)"))
        note = raised
        if not note and missed and any(table.job(i) and table.job(i).run_at > missed[0].run_at for i in taken):
            note = "the oldest is the smallest run_at (not the smallest id, not the latest)"
        elif not note and missed and missed[0].type != "send_receipt":
            note = f"job {missed[0].id} is ready and its type is {short(missed[0].type)}: a claim takes every type"
        return diff.Finding(OLDEST_BATCH if self.batch else OLDEST, got=got, expected=expected, note=note)

    def _left_alone(self, table: Table, job: Job) -> bool:
        """Whether the answer leaves `job` even when it is the only job in the table (an answer that only
        takes it later, after others, is about order, not about the job)."""
        alone = replace(table, jobs=(job,))
        return job.id not in ids_of(self.run(alone, self.learner(alone)).returned)

    def _gone_when(self, table: Table, change: Callable[[Job], Job]) -> bool:
        """Whether the answer agrees with the reference once every job is changed so."""
        return self.compare(replace(table, jobs=tuple(change(j) for j in table.jobs))) is None

    def _marks(self, table: Table, ours: diff.Outcome, theirs: diff.Outcome, taken: list,
               raised: str | None, slack_s: float) -> diff.Finding | None:
        differences = mismatches(ours.state, theirs.state, slack_s=slack_s)
        # The claimed job's lease and attempts first: what a claim must write, before what it must not.
        differences.sort(key=lambda m: not (m.key and m.key[0] in taken and m.column in ("locked_until", "attempts")))
        if not differences:
            if raised:
                return diff.Finding(THOSE_JOBS if self.batch else THAT_JOB, got=raised, expected="no error")
            return None
        first = differences[0]
        job_id = first.key[0]
        mine, ref = first.ours, first.theirs
        if job_id in taken and first.column in ("locked_until", "attempts"):
            name = BATCH_MARK if self.batch else (LEASE if first.column == "locked_until" else ATTEMPT)
            before = table.job(job_id)
            if first.column == "locked_until":
                note = f"claim with lease_s = {table.lease_s:g}: locked_until = now() + {table.lease_s:g} s"
                if mine is None:
                    note = "locked_until was left NULL: the job is not hidden at all"
            else:
                note = f"job {job_id} had attempts = {before.attempts}; a claim adds one"
            return diff.Finding(name, got=f"job {job_id}'s {first.column}: {shown_value(mine)}",
                                expected=f"{shown_value(ref)}", note=raised or note)
        if self.batch and first.column in ("locked_until", "attempts") and job_id not in taken:
            note = ("a job leased but not returned is hidden from every worker and run by none until its lease "
                    "runs out: put the LIMIT inside the statement that locks and marks")
        elif first.column in ("locked_until", "attempts") and job_id not in taken:
            note = f"job {job_id} was marked but not returned. {RESCANNED}"
        elif first.column is None:
            note = f"job {job_id} was {'deleted' if mine is MISSING else 'added'}: a claim keeps every job"
        else:
            note = (f"a claim changes only the claimed job's locked_until and attempts; job {job_id}'s "
                    f"{first.column} changed")
        what = f"job {job_id}" + (f"'s {first.column}" if first.column else "")
        return diff.Finding(THOSE_JOBS if self.batch else THAT_JOB, got=f"{what}: {shown_value(mine)}",
                            expected=f"{what}: {shown_value(ref)}", note=raised or note)


def shown_value(value) -> str:
    if isinstance(value, At):
        return str(value)
    if value is MISSING:
        return "no such row"
    return short(value)

