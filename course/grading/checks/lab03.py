"""Lab 03: a queue in Postgres. The learner's claim and the reference claim run on the same jobs table,
drawn at random from every table the statement allows (other types, odd payloads, jobs due, due
exactly now, scheduled for later, leased, left by a crashed worker, attempts in the thousands, ties,
limits from 1 to more than there are jobs); then beside other workers: between the answer's
statements, held at their commit with their locks, and stopped after they locked a row.

What the rules leave free is not compared: which of two jobs with the same run_at goes first (the
reference is run with the ties broken as the learner's answer broke them), the order of a batch's rows.

Why one module: it is this lab's exercises judged — the vocabulary of a jobs table in the learner's words
(a scenario, how it is drawn, shrunk and told), the two claims' judges, and the checks labs.toml names.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from course.grading import differential as diff
from course.grading import interleave
from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask
from course.grading.snapshot import MISSING, At, Reader, in_words, mismatches
from course.grading.trial import Attempt, Trial, short

# The lesson's table, exactly as the lab builds it (the lab shows it; keep the two the same).
JOBS_TABLE = """
CREATE TABLE jobs (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    type         text        NOT NULL,
    payload      jsonb       NOT NULL,
    run_at       timestamptz NOT NULL DEFAULT now(),
    locked_until timestamptz,
    attempts     integer     NOT NULL DEFAULT 0
);
CREATE INDEX jobs_ready ON jobs (run_at);
"""

# The reference answers: the solution's statements. Each is one statement, so no other session can act
# between two of its steps; the adversaries below compare an answer with it. Each runs its locking
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

DEFAULT_SEED = 3  # the scenarios `check("03.claim")` draws unless given another seed
SCENARIOS = 56  # drawn per check, six or seven of each family (below); a few ms each


# -- a jobs table, in the learner's words ------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    id: int
    run_at: float  # seconds from now: -2 is due 2 s ago, 0 is due exactly now, 60 is in a minute
    locked_until: float | None = None  # None: never claimed; in the past: its lease ran out
    attempts: int = 0
    type: str = "send_receipt"
    payload: Any = field(default_factory=lambda: {"order_id": 9812})

    @property
    def leased(self) -> bool:
        return self.locked_until is not None and self.locked_until > 0

    @property
    def ran_out(self) -> bool:
        return self.locked_until is not None and self.locked_until <= 0

    @property
    def ready(self) -> bool:
        return self.run_at <= 0 and not self.leased

    def told(self) -> str:
        due = "due exactly now" if self.run_at == 0 else ("due " + in_words(self.run_at) if self.run_at < 0
                                                          else "scheduled " + in_words(self.run_at))
        parts = [short(self.type) if self.type != "send_receipt" else "send_receipt", due]
        if self.leased:
            parts.append(f"leased until {in_words(self.locked_until)}")
        elif self.ran_out:
            parts.append(f"its lease ran out {in_words(self.locked_until)}")
        if self.attempts:
            parts.append(f"attempts {self.attempts}")
        if not (isinstance(self.payload, dict) and list(self.payload) == ["order_id"]):
            parts.append(f"payload {short(self.payload)}")
        return f"{self.id} ({', '.join(parts)})"


@dataclass(frozen=True)
class Table:
    """A scenario: the jobs table as it stands, and the call (claim, or claim_batch with a limit)."""
    jobs: tuple[Job, ...]
    lease_s: float = 30
    limit: int | None = None  # None: claim(conn, lease_s); a number: claim_batch(conn, limit, lease_s)

    def job(self, job_id) -> Job | None:
        return next((j for j in self.jobs if j.id == job_id), None)

    @property
    def call(self) -> str:
        return (f"claim(conn, {self.lease_s:g})" if self.limit is None
                else f"claim_batch(conn, {self.limit}, {self.lease_s:g})")

    def told(self) -> str:
        if not self.jobs:
            return f"an empty jobs table; {self.call}"
        told = [j.told() for j in sorted(self.jobs, key=lambda j: j.id)]
        listed = told[0] if len(told) == 1 else ", ".join(told[:-1]) + " and " + told[-1]
        return f"{'job' if len(told) == 1 else 'jobs'} {listed}; {self.call}"

    def shrinks(self) -> Iterator["Table"]:
        """Smaller tables first (half the jobs fewer, then a quarter, ... then one), then plainer ones (a value
        simplified in every job at once, then in one job), one step at a time."""
        n = len(self.jobs)
        size = max(1, n // 2) if n else 0
        while size >= 1:
            for start in range(0, n, size):
                yield replace(self, jobs=self.jobs[:start] + self.jobs[start + size:])
            size //= 2
        if self.limit is not None and self.limit > 1:  # big steps first: a limit of 100 need not go down by ones
            for smaller in sorted({1, min(self.limit - 1, max(1, n)), self.limit // 2, self.limit - 1}):
                yield replace(self, limit=smaller)
        if self.lease_s != 30:
            yield replace(self, lease_s=30)
        simplifications = [lambda j: replace(j, payload={"order_id": 9812}), lambda j: replace(j, type="send_receipt"),
                           lambda j: replace(j, attempts=1 if j.locked_until is not None else 0),
                           lambda j: replace(j, run_at=float(round(j.run_at)) or (-1.0 if j.run_at < 0 else j.run_at)),
                           lambda j: replace(j, run_at=-1.0 if j.run_at < -1 else j.run_at),
                           lambda j: replace(j, locked_until=-1.0 if j.ran_out else 30.0 if j.leased else None),
                           lambda j: replace(j, locked_until=None)]
        for simpler in simplifications:  # in every job at once
            everywhere = tuple(c if _plainer(c := simpler(j), j) else j for j in self.jobs)
            if everywhere != self.jobs:
                yield replace(self, jobs=everywhere)
        for index, job in enumerate(self.jobs):  # in one job
            for simpler in simplifications:
                candidate = simpler(job)
                if candidate != job and _plainer(candidate, job):
                    yield replace(self, jobs=self.jobs[:index] + (candidate,) + self.jobs[index + 1:])
        ids = sorted(j.id for j in self.jobs)
        renumbered = {old: new for new, old in enumerate(ids, start=1)}
        if any(old != new for old, new in renumbered.items()):
            yield replace(self, jobs=tuple(replace(j, id=renumbered[j.id]) for j in self.jobs))

    def as_yours(self, claimed: set) -> "Table":
        """The same table with each tie (jobs with one run_at) broken the way the answer broke it: the
        jobs it claimed move a tenth of a millisecond earlier. Which of two equal jobs goes first is free."""
        at = {}
        for j in self.jobs:
            at.setdefault(j.run_at, []).append(j.id)
        return replace(self, jobs=tuple(
            replace(j, run_at=j.run_at - 0.0001) if j.id in claimed and len(at[j.run_at]) > 1 else j
            for j in self.jobs))


def _plainer(candidate: Job, job: Job) -> bool:
    """Whether a simplification really simplifies (so shrinking always ends)."""
    def weight(j: Job) -> tuple:
        return (j.payload != {"order_id": 9812}, j.type != "send_receipt", j.attempts, j.locked_until is not None,
                abs(j.locked_until or 0), j.run_at != round(j.run_at), abs(j.run_at))
    return weight(candidate) < weight(job)


def install(table: Table) -> sql.Composable:
    """The INSERT that writes the scenario (ids as given, times from now())."""
    if not table.jobs:
        return sql.SQL("SELECT")
    rows = [[sql.Literal(j.id), sql.Literal(j.type), sql.Literal(Jsonb(j.payload)), diff.from_now(j.run_at),
             diff.from_now(j.locked_until), sql.Literal(j.attempts)] for j in table.jobs]
    return sql.SQL("INSERT INTO jobs (id, type, payload, run_at, locked_until, attempts) OVERRIDING SYSTEM VALUE "
                   ) + diff.values(rows)


# -- drawing tables: every dimension the rules name, each family stressing some ---------------------------

TYPES = ("send_receipt", "send_invoice", "refund_order", "notify_courier", "", "envoyer_reçu", "x" * 300)
LEASES = (30, 45, 1, 0.5, 2.5, 7.25, 90, 3600, 86400)


def _payload(rng: random.Random, n: int) -> Any:
    return rng.choice([{"order_id": 9812 + n}] * 6 + [
        {}, [], None, 42, "a plain string", {"order_id": 9812 + n, "items": [{"sku": "D-1", "qty": 2}]},
        {"note": "naïve café ☃ 🍜", "quote": "it's \"fine\""}, {"deep": {"a": {"b": [None, True, 1.5]}}},
        {"big": "x" * 3000}])


def _due(rng: random.Random) -> float:
    return -rng.choice([0.5, 1, 2, 2.5, 3, 5, 8, 60, 61.5, 3600, 86400 * 3]) * rng.choice([1, 1, 1.5, 7])


def _job(rng: random.Random, n: int, *, run_at: float | None = None, lease: str | None = None) -> Job:
    if run_at is None:
        run_at = rng.choices([_due(rng), 0.0, rng.choice([0.5, 1, 2.5, 60, 3600, 86400])], weights=[7, 1, 2])[0]
    lease = lease or rng.choices(["none", "leased", "ran out"], weights=[6, 2, 2])[0]
    locked_until = {"none": None, "leased": rng.choice([0.5, 1, 5, 30, 3600]) * 1.0,
                    "ran out": -rng.choice([0.5, 1, 5, 600]) * 1.0}[lease]
    attempts = rng.choices([0, rng.randint(1, 5), rng.randint(1000, 50000)], weights=[6, 3, 1])[0]
    if lease != "none" and attempts == 0:
        attempts = 1  # a job someone claimed has been attempted
    kind = rng.choices(TYPES, weights=[10, 4, 2, 2, 1, 1, 1])[0]
    return Job(n, run_at, locked_until, attempts, kind, _payload(rng, n))


def _numbered(rng: random.Random, jobs: list[Job]) -> tuple[Job, ...]:
    """Ids that are not in run_at order (the smallest id is often not the oldest job)."""
    ids = rng.sample(range(1, 3 * len(jobs) + 4), len(jobs))
    return tuple(replace(j, id=i) for j, i in zip(jobs, ids))


def _count(rng: random.Random) -> int:
    return rng.choices([0, 1, 2, 3, 4, 6, 9, 13], weights=[1, 3, 4, 4, 3, 3, 2, 1])[0]


def _table(rng: random.Random, jobs: list[Job], batch: bool) -> Table:
    if rng.random() < 0.2 and len(jobs) > 1:  # ties: two jobs with one run_at
        a, b = rng.sample(range(len(jobs)), 2)
        jobs[b] = replace(jobs[b], run_at=jobs[a].run_at)
    ready = sum(1 for j in jobs if j.ready)
    limit = None
    if batch:
        limit = rng.choice([1, 1, 2, 3, max(1, ready), ready + 1, ready + 4, 100])
    return Table(_numbered(rng, jobs), rng.choice(LEASES), limit)


def families(batch: bool) -> list[Callable[[random.Random], Table]]:
    """One generator per family of tables; `search` takes them in turn, so every family is tried."""
    def mixed(rng):
        return _table(rng, [_job(rng, n) for n in range(_count(rng))], batch)

    def waiting(rng):  # several ready jobs of every type, nothing else: who is oldest?
        return _table(rng, [_job(rng, n, run_at=_due(rng), lease="none") for n in range(rng.randint(2, 6))], batch)

    def boundary(rng):  # a job due exactly now, beside jobs not ready
        others = [_job(rng, n, run_at=rng.choice([0.5, 1.0, 60.0, 3600.0]), lease=rng.choice(["none", "leased"]))
                  for n in range(rng.randint(0, 3))]
        return _table(rng, [_job(rng, 9, run_at=0.0, lease="none"), *others], batch)

    def crashed(rng):  # leases that ran out (their workers died), beside live leases and new jobs
        jobs = [_job(rng, n, run_at=_due(rng), lease="ran out") for n in range(rng.randint(1, 3))]
        jobs += [_job(rng, 10 + n, lease=rng.choice(["leased", "none"])) for n in range(rng.randint(0, 3))]
        return _table(rng, jobs, batch)

    def busy(rng):  # the oldest jobs leased: the claim must go past them
        jobs = [_job(rng, n, run_at=-100.0 - n, lease="leased") for n in range(rng.randint(1, 3))]
        jobs += [_job(rng, 10 + n, run_at=_due(rng), lease="none") for n in range(rng.randint(0, 3))]
        return _table(rng, jobs, batch)

    def later(rng):  # jobs scheduled for later (some run before: their lease ran out), beside ready ones
        jobs = [_job(rng, n, run_at=rng.choice([0.5, 1, 2.5, 60, 3600]) * 1.0, lease=rng.choice(["none", "ran out"]))
                for n in range(rng.randint(1, 3))]
        jobs += [_job(rng, 10 + n) for n in range(rng.randint(0, 3))]
        return _table(rng, jobs, batch)

    def nothing_ready(rng):  # every job just short of ready: any claim here is wrong
        def almost(n):
            if rng.random() < 0.5:  # due in a moment, maybe run before (its lease ran out)
                return _job(rng, n, run_at=rng.choice([0.5, 0.5, 1, 60]) * 1.0, lease=rng.choice(["none", "ran out"]))
            job = _job(rng, n, run_at=_due(rng), lease="leased")  # due, but leased a moment more
            return replace(job, locked_until=rng.choice([0.5, 0.5, 1.0, 30.0]))
        return _table(rng, [almost(n) for n in range(rng.randint(1, 4))], batch)

    def crowd(rng):  # more jobs than most limits
        return _table(rng, [_job(rng, n, lease=rng.choice(["none", "none", "ran out", "leased"]))
                            for n in range(rng.randint(8, 16))], batch)

    def many(rng):  # more ready jobs than a hard-coded limit of ten would take, and limits above ten
        jobs = [_job(rng, n, run_at=_due(rng), lease=rng.choice(["none"] * 5 + ["ran out", "leased"]))
                for n in range(rng.randint(12, 30))]
        table = _table(rng, jobs, batch)
        ready = sum(1 for j in table.jobs if j.ready)
        return replace(table, limit=rng.choice([11, 12, 15, ready, ready + 3, 100])) if batch else table

    return [mixed, waiting, boundary, crashed, busy, later, nothing_ready, crowd] + ([many] if batch else [])


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


def _ids(returned) -> list:
    if returned is None or isinstance(returned, Odd):
        return []
    rows = [returned] if returned and not isinstance(returned[0], tuple) else returned
    return [row[0] for row in rows]


def _shown_ids(ids: list) -> str:
    return "nothing" if not ids else ("job " + str(ids[0]) if len(ids) == 1 else
                                      "jobs " + ", ".join(map(str, sorted(ids))))


# -- the checks, by rule (labs.toml names each) ----------------------------------------------------------------

RESCANNED = ("If your statement chooses with `WHERE id IN (SELECT ... LIMIT ... FOR UPDATE SKIP LOCKED)`: PostgreSQL "
             "may run that sub-select again for every row it scans (on a table like a real queue's, it does), and "
             "each run passes over the rows just changed and picks further jobs. `id = (SELECT ...)` for one job, "
             "`id = ANY(ARRAY(SELECT ...))` for several, run the sub-select once.")

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
        claimed = set(_ids(ours.returned)) | {key[0] for key, row in ours.state.get("jobs", {}).items()
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
        if raised and not _ids(ref):
            return diff.Finding(EMPTY_LIST if self.batch else NONE_WHEN_EMPTY, got="an exception",
                                expected=short(ref), note=raised)
        if isinstance(mine, Odd) or (ours.raised is None and self._shape_differs(mine, ref)):
            empty = not _ids(ref)
            name = (EMPTY_LIST if self.batch else NONE_WHEN_EMPTY) if empty else (ROWS if self.batch else ROW)
            return diff.Finding(name, got=str(mine) if not isinstance(mine, tuple) else short(mine),
                                expected=short(ref), note=self._row_note(mine, ref))
        taken, wanted = _ids(mine), _ids(ref)
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
        got, expected = f"yours claimed {_shown_ids(taken)}", f"the reference claims {_shown_ids(wanted)}"
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
        return job.id not in _ids(self.run(alone, self.learner(alone)).returned)

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
            return diff.Finding(name, got=f"job {job_id}'s {first.column}: {_value(mine)}",
                                expected=f"{_value(ref)}", note=raised or note)
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
        return diff.Finding(THOSE_JOBS if self.batch else THAT_JOB, got=f"{what}: {_value(mine)}",
                            expected=f"{what}: {_value(ref)}", note=raised or note)


def _value(value) -> str:
    if isinstance(value, At):
        return str(value)
    if value is MISSING:
        return "no such row"
    return short(value)


# -- other workers at the same time ---------------------------------------------------------------------------

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
            probe = interleave.lock_probe(arena, learner, table, oldest, lambda got: 2 in _ids(got.returned))
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
    return _ids(contract(done.value))


def _new_job(conn: psycopg.Connection) -> str:
    conn.execute("INSERT INTO jobs (id, type, payload, run_at) OVERRIDING SYSTEM VALUE "
                 "VALUES (100, 'send_receipt', '{\"order_id\": 9900}', now() - interval '1 minute')")
    return "job 100 added"


def _concurrently(judge: Judge, table: Table, ours: diff.Outcome, allowed: list[diff.Outcome]) -> diff.Finding | None:
    taken = _ids(ours.returned)
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
