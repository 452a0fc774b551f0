"""Lab 04: visibility timeouts and leases. The learner's ack and heartbeat run beside the reference queue's
own statements on the same jobs, drawn at random from every state a job can be in when a worker acks or
beats (its lease ours and live, ours and run out, passed to another worker, handed back for a retry, gone,
an id past int4, claimed with no worker name), with other jobs and the dead-letter table around it; then
with another worker taking the job between the answer's statements, with its row locked for a moment, and
with a zombie's refused call before worker B's own. The heartbeat then runs in real worker processes, a
job 2.5 times as long as its lease, while one of them is SIGKILLed.

Why one module (quiz.py beside it holds the predictions and the quiz, workers.py the heartbeat's stage in
real worker processes, which took it past 600 lines): it is this lab's exercises judged — a job's states
in the learner's words (a scenario, how it is drawn, shrunk and told), the two judges, the races,
and the checks labs.toml names.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from course.core import queue
from course.core import sql as queries

from course.grading import differential as diff
from course.grading import interleave
from course.grading.faults.workloads import SLOW_WORK_S
from course.grading.snapshot import MISSING, At, Reader, in_words, mismatches
from course.grading.trial import Attempt, Trial, short
from course.grading.checks import exercise_check

# The fault run: a job that works 2.5 times as long as its lease. Only a heartbeat keeps it to one run.
LEASE_S = 1.0
WORK_S = SLOW_WORK_S  # the slow job's work (course/grading/faults/workloads.py)
DEFAULT_SEED = 4  # the scenarios and the fault schedule `check("04.heartbeat")` uses unless given another seed
TIME_LIMIT_S = 20.0  # a passing run takes about 6 s; the rest is room for a loaded machine
SCENARIOS = 36  # drawn per check, six of each family: enough for every wrong answer we know, twice over

OURS = uuid.UUID("0000000a-0000-4000-8000-00000000000a")  # the lease token the answer is given
B_TOKEN = uuid.UUID("0000000b-0000-4000-8000-00000000000b")  # worker B's, when B claims the job meanwhile


def _token(owner: str | None, job_id: int) -> uuid.UUID | None:
    """ours: the answer's token; theirs: another claim's (one per job); None: no claim holds the job."""
    if owner == "ours":
        return OURS
    return uuid.UUID(int=0xC0FFEE00000000000000000000 + job_id) if owner == "theirs" else None


# -- a job's row, in the learner's words ---------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One job of the course's queue. `run_at` is when it is visible: for a claimed job, its lease's end."""
    id: int
    run_at: float  # seconds from now
    lease: str | None = "ours"  # "ours", "theirs" (another claim's token) or None (handed back, or never claimed)
    attempts: int = 1
    queue: str = "default"
    type: str = "send_receipt"
    payload: Any = field(default_factory=lambda: {"order_id": 9812})
    priority: int = 0
    max_attempts: int = 8
    last_error: str | None = None  # a job run before and retried keeps its last error while it runs again
    worker: str | None = "worker"  # a claimed job's claimed_by; None: claimed with no worker name

    def told(self) -> str:
        if self.lease is None:
            state = ("handed back, to run again " + in_words(self.run_at)) if self.run_at > 0 else \
                f"waiting, due {in_words(self.run_at)}"
        else:
            whose = "your lease" if self.lease == "ours" else "another worker's lease"
            state = f"{whose}, ending {in_words(self.run_at)}" if self.run_at > 0 else \
                f"{whose}, which ran out {in_words(self.run_at)}"
        extra = [f"attempts {self.attempts}"] if self.attempts != 1 else []
        if self.queue != "default":
            extra.append(f"queue {short(self.queue)}")
        if self.type != "send_receipt":
            extra.append(short(self.type))
        if not (isinstance(self.payload, dict) and list(self.payload) == ["order_id"]):
            extra.append(f"payload {short(self.payload)}")
        if self.priority:
            extra.append(f"priority {self.priority}")
        if self.last_error is not None:
            extra.append(f"last_error {short(self.last_error)}")
        if self.lease is not None and self.worker is None:
            extra.append("claimed with no worker name: claimed_by NULL")
        return f"{self.id} ({', '.join([state, *extra])})"


@dataclass(frozen=True)
class Jobs:
    """A scenario: the queue's rows, the dead-letter table's ids, the job the call is about, and (for the
    heartbeat) lease_s and when the worker's copy of the job says its lease ends."""
    rows: tuple[Row, ...]
    job_id: int
    dead: tuple[int, ...] = ()
    lease_s: float | None = None  # None: ack(conn, job_id, lease_token); a number: extend_lease(conn, job, lease_s)
    claimed_until: float = 30.0  # the worker's job.lease_expires_at, as seconds from now

    def row(self, job_id: int) -> Row | None:
        return next((r for r in self.rows if r.id == job_id), None)

    @property
    def call(self) -> str:
        if self.lease_s is None:
            return f"ack(conn, {self.job_id}, your lease_token)"
        return f"extend_lease(conn, job {self.job_id} as you claimed it, {self.lease_s:g})"

    def told(self) -> str:
        target = self.row(self.job_id)
        parts = [f"job {target.told()}" if target else
                 f"job {self.job_id} is gone from the jobs table"
                 + (" (dead-lettered)" if self.job_id in self.dead else "")]
        others = [r.told() for r in self.rows if r.id != self.job_id]
        if others:
            parts.append(("other job " if len(others) == 1 else "other jobs ") + ", ".join(others))
        if self.lease_s is not None and target and target.lease == "ours" and target.run_at - self.claimed_until > 0.5:
            parts.append(f"your copy of the job says its lease ends {in_words(self.claimed_until)} (your earlier "
                         "beats moved it since)")
        return "; ".join(parts) + "; " + self.call

    def shrinks(self) -> Iterator["Jobs"]:
        for r in self.rows:
            if r.id != self.job_id:
                yield replace(self, rows=tuple(x for x in self.rows if x is not r))
        if self.dead:
            yield replace(self, dead=())
        if self.lease_s is not None and self.lease_s != 30:
            yield replace(self, lease_s=30)
        target = self.row(self.job_id)
        if target and target.lease == "ours" and self.claimed_until != target.run_at:
            yield replace(self, claimed_until=target.run_at)  # no earlier beats
        for n, r in enumerate(self.rows):
            simpler = [replace(r, payload={"order_id": 9812}), replace(r, type="send_receipt"),
                       replace(r, queue="default"), replace(r, priority=0), replace(r, attempts=1),
                       replace(r, max_attempts=8), replace(r, last_error=None),
                       replace(r, run_at=(30.0 if r.run_at > 0 else -1.0)), replace(r, run_at=30.0)]
            for candidate in simpler:
                if candidate != r and _weight(candidate) < _weight(r):
                    shrunk = replace(self, rows=self.rows[:n] + (candidate,) + self.rows[n + 1:])
                    if r.id == self.job_id and r.lease == "ours":  # the worker's copy follows its row
                        shrunk = replace(shrunk, claimed_until=candidate.run_at - (r.run_at - self.claimed_until))
                    yield shrunk


def _weight(r: Row) -> tuple:
    return (r.payload != {"order_id": 9812}, r.type != "send_receipt", r.queue != "default", r.priority != 0,
            r.attempts != 1, r.max_attempts != 8, r.last_error is not None, 0 if r.run_at == 30 else 1 if r.run_at == -1 else 2, abs(r.run_at))


def install(jobs: Jobs) -> sql.Composable:
    statements = []
    if jobs.rows:
        rows = [[sql.Literal(r.id), sql.Literal(r.queue), sql.Literal(r.type), sql.Literal(Jsonb(r.payload)),
                 sql.Literal(r.priority), diff.from_now(r.run_at), sql.Literal(r.attempts), sql.Literal(r.max_attempts),
                 sql.Literal(_token(r.lease, r.id)), sql.Literal(r.worker if r.lease else None),
                 diff.from_now(-60.0) if r.lease else sql.NULL,  # claimed a minute ago
                 sql.Literal(r.last_error)] for r in jobs.rows]
        statements.append(sql.SQL("INSERT INTO jobs (id, queue, type, payload, priority, run_at, attempts, "
                                  "max_attempts, lease_token, claimed_by, claimed_at, last_error) ") + diff.values(rows))
    if jobs.dead:
        rows = [[sql.Literal(i), sql.Literal("default"), sql.Literal("send_receipt"),
                 sql.Literal(Jsonb({"order_id": i})), sql.Literal(0), sql.Literal(8), sql.Literal(8),
                 sql.Literal("max_attempts"), sql.SQL("now()")] for i in jobs.dead]
        statements.append(sql.SQL("INSERT INTO dead_jobs (id, queue, type, payload, priority, attempts, max_attempts, "
                                  "reason, created_at) ") + diff.values(rows))
    return sql.SQL("; ").join(statements) if statements else sql.SQL("SELECT")


def the_job(jobs: Jobs) -> queue.Job:
    """The worker's copy of the job, as its claim returned it."""
    row = jobs.row(jobs.job_id) or Row(jobs.job_id, jobs.claimed_until)
    return queue.Job(id=jobs.job_id, queue=row.queue, type=row.type, payload=row.payload, priority=row.priority,
                     attempts=row.attempts, max_attempts=row.max_attempts, lease_token=OURS,
                     lease_expires_at=datetime.now(timezone.utc) + timedelta(seconds=jobs.claimed_until))


# -- drawing job states ----------------------------------------------------------------------------------------

QUEUES = ("default", "default", "default", "emails", "critical", "")
TYPES = ("send_receipt", "send_receipt", "sync_channel_manager", "send_invoice", "envoyer_reçu")
LEASES = (30, 5, 1, 0.5, 2.5, 45, 90, 3600)


def _retried(row: Row) -> Row:
    """A job run before keeps the error of its last failed run: a beat or an ack must leave it alone. Drawn
    from attempts, not from the random stream, so every seed's scenarios stay the ones they were."""
    return replace(row, last_error=f"HTTP 503 (attempt {row.attempts - 1})") if row.attempts > 1 else row


def _other(rng: random.Random, job_id: int) -> Row:
    owner = rng.choice(["theirs", "theirs", None])
    run_at = rng.choice([1, 5, 30, 3600]) * 1.0 if rng.random() < 0.6 else -rng.choice([0.5, 2, 60]) * 1.0
    return _retried(Row(job_id, run_at, owner, rng.choice([0, 1, 2, 7, 2500]) if owner is None else rng.randint(1, 8),
               rng.choice(QUEUES), rng.choice(TYPES), rng.choice([{"order_id": 9812 + job_id}, {}, [1, 2], None,
                                                                   {"note": "ça va ☃"}]),
               rng.choice([0, 0, 5, -3]), rng.choice([8, 8, 3, 25])))


def _target(rng: random.Random, job_id: int, owner: str | None) -> Row:
    live = rng.random() < 0.6
    run_at = (rng.choice([0.5, 2.5, 20, 30, 3600]) if live else -rng.choice([0.5, 1, 3, 600])) * 1.0
    attempts = rng.choice([1, 1, 2, 3, 4000])
    return _retried(replace(_other(rng, job_id), run_at=run_at, lease=owner, attempts=attempts, last_error=None))


def other_jobs_token(heartbeat: bool) -> Jobs:
    """The caller's job id and a lease token that is another job's: that job is not the one to delete or
    extend. Tried after the drawn scenarios (it draws nothing), so it changes no other finding's example."""
    return Jobs((Row(2, 30.0, "ours", payload={"order_id": 9813}),), 1, lease_s=5.0 if heartbeat else None)


BIG_ID = 2**31 + 5  # jobs.id is bigint: a queue that has run two billion jobs has ids past int4


def boundaries(heartbeat: bool) -> list[Jobs]:
    """Jobs the drawn scenarios never hold, tried after them (they draw nothing): a job whose id is past
    int4, and one claimed with no worker name (claimed_by NULL, as `claim_one(conn)` leaves it)."""
    lease_s = 5.0 if heartbeat else None
    return [Jobs((Row(BIG_ID, 30.0, "ours"),), BIG_ID, lease_s=lease_s),
            Jobs((Row(3, 30.0, "ours", worker=None),), 3, lease_s=lease_s)]


def families(heartbeat: bool) -> list[Callable[[random.Random], Jobs]]:
    def jobs(rng, owner, *, gone=False) -> Jobs:
        job_id = rng.randint(1, 9)
        others = [_other(rng, i) for i in rng.sample([i for i in range(1, 14) if i != job_id], rng.randint(0, 4))]
        rows = others if gone else [_target(rng, job_id, owner), *others]
        rng.shuffle(rows)
        dead = (job_id,) if gone and rng.random() < 0.5 else ()
        lease_s = rng.choice(LEASES) * 1.0 if heartbeat else None
        target = None if gone else rows[[r.id for r in rows].index(job_id)]
        if target is not None and target.lease == "ours":  # the claim's lease end, or earlier: beats moved it since
            claimed_until = target.run_at - rng.choice([0, 0, 1, 25])
        else:  # our lease ended and someone else moved the job since
            claimed_until = -rng.choice([1.0, 5.0, 60.0])
        return Jobs(tuple(rows), job_id, dead, lease_s, claimed_until)

    return [lambda rng: jobs(rng, "ours"), lambda rng: jobs(rng, "ours"), lambda rng: jobs(rng, "theirs"),
            lambda rng: jobs(rng, None), lambda rng: jobs(rng, rng.choice(["ours", "theirs", None])),
            lambda rng: jobs(rng, None, gone=True)]


# -- the contract and the checks -----------------------------------------------------------------------------


def truth(value: Any) -> bool:
    """The contract of both answers: something true, or something false."""
    try:
        return bool(value)
    except Exception:  # noqa: BLE001 (a value whose truth cannot be read counts as neither: a difference)
        return None


DELETES = "deletes the job while lease_token is still its token"
ONLY_THAT = "deletes only that job, and changes nothing else"
ZOMBIE = "a worker that lost its lease deletes nothing (the zombie's ack)"
RETRIED = "a job handed back for a retry is not deleted by an old lease's ack"
ACK_TRUE = "returns something true when it deleted the job"
ACK_FALSE = "returns something false when it deleted nothing"
ACK_CHECKS = (DELETES, ONLY_THAT, ZOMBIE, RETRIED, ACK_TRUE, ACK_FALSE)
CALL_BOUND_S = 30.0  # a bound on a hang: a call waits at most a few seconds for a lock the check holds
BEAT_RETURNS = "returns at once: the heartbeat's thread does the waiting between beats, not extend_lease"
ACK_RETURNS = "returns at once: an ack is one statement"

BOOKKEEPING = ("claimed_by", "claimed_at")  # who claimed and when: a heartbeat may note itself there (free)
EXTENDS = "moves the end of the lease to lease_s seconds from now (not from the end of the current lease)"
FENCED = "does not extend a lease that is no longer ours (the lease token changed)"
ONLY_RUN_AT = "changes nothing but that job's run_at"
BEAT_TRUE = "returns something true while the lease is ours"
BEAT_FALSE = "returns something false when the lease is no longer ours"
BEAT_GONE = "returns something false for a job that is gone"
BEAT_CHECKS = (EXTENDS, FENCED, ONLY_RUN_AT, BEAT_TRUE, BEAT_FALSE, BEAT_GONE)


def _holder(jobs: Jobs, theirs: diff.Outcome) -> str:
    """Who holds the job once the reference has run ("ours", "theirs", "nobody" or "gone"): the scenario's
    holder, or the one another session made meanwhile (worker B's claim)."""
    stored = theirs.state["jobs"].get((jobs.job_id,))
    if stored is None:
        return "gone"
    return "nobody" if stored["lease_token"] is None else "ours" if stored["lease_token"] == str(OURS) else "theirs"


def _where(m) -> str:
    """A mismatch's place, in words: "job 3's run_at", "dead-letter row 4"."""
    row = f"{'job' if m.table == 'jobs' else 'dead-letter row'} {m.key[0]}"
    return row + (f"'s {m.column}" if m.column else "")


def _value(value) -> str:
    if value is MISSING:
        return "no such row"
    if isinstance(value, dict):
        return "the row is there"
    return str(value) if isinstance(value, At) else short(value)


UNNAMED_NOTE = ("this job was claimed with no worker name (claimed_by NULL, as claim_one(conn) leaves it): the "
                "lease is yours by its token alone; claimed_by and claimed_at are bookkeeping, not the fence")


class Judge:
    """Runs an answer and the reference on one scenario and names the first rule the answer breaks."""

    def __init__(self, t: Trial, conn: psycopg.Connection, reader: Reader, answer: Callable, heartbeat: bool):
        self.t, self.conn, self.reader, self.answer, self.heartbeat = t, conn, reader, answer, heartbeat

    def learner(self, jobs: Jobs) -> Callable[[psycopg.Connection], Attempt]:
        if self.heartbeat:
            return lambda conn: self.call(conn, the_job(jobs), jobs.lease_s, example=jobs.told())
        return lambda conn: self.call(conn, jobs.job_id, OURS, example=jobs.told())

    def call(self, conn: psycopg.Connection, *args, example: str | None = None) -> Attempt:
        """The answer, given at most CALL_BOUND_S (a beat that sleeps lease_s / 3 would hold the check for
        20 minutes at a 3600 s lease: round f4, hb_w15/hb_w20)."""
        return self.t.attempt_within(CALL_BOUND_S, self.answer, conn, *args, example=example,
                                     during=BEAT_RETURNS if self.heartbeat else ACK_RETURNS)

    def reference(self, jobs: Jobs) -> Callable[[psycopg.Connection], Attempt]:
        if self.heartbeat:
            params = {"id": jobs.job_id, "lease_token": OURS, "lease_s": jobs.lease_s}
            return lambda conn: Attempt(
                conn.execute(queries.query("queue", "extend_lease"), params).fetchone() is not None)
        params = {"id": jobs.job_id, "lease_token": OURS}
        return lambda conn: Attempt(conn.execute(queries.query("queue", "ack"), params).rowcount == 1)

    def compare(self, jobs: Jobs) -> diff.Finding | None:
        ours, theirs = (self._run(jobs, answer) for answer in (self.learner(jobs), self.reference(jobs)))
        return self.judge(jobs, ours, [theirs])

    def _run(self, jobs: Jobs, answer) -> diff.Outcome:
        done, state = diff.as_the_caller_runs_it(self.conn, self.reader, install(jobs), answer)
        return diff.Outcome(returned=None if done.error else truth(done.value), raised=done.error, state=state)

    def judge(self, jobs: Jobs, ours: diff.Outcome, allowed: list[diff.Outcome], *,
              slack_s: float = 0.25) -> diff.Finding | None:
        """None if the outcome is one of the allowed ones; else the rule it breaks, judged against the allowed
        outcome in which the other sessions saw what they saw beside the answer (or the last)."""
        one = self._beat if self.heartbeat else self._ack
        finding = diff.against(ours, allowed, lambda theirs: one(jobs, ours, theirs, slack_s))
        if finding is not None and not finding.check:  # the same rows, but worker B saw something else
            return replace(finding, check=BEAT_FALSE if self.heartbeat else ZOMBIE)
        return finding

    def _ack(self, jobs: Jobs, ours: diff.Outcome, theirs: diff.Outcome, slack_s: float) -> diff.Finding | None:
        key = (jobs.job_id,)
        had = key in theirs.state["jobs"] or key in ours.state["jobs"] or jobs.row(jobs.job_id) is not None
        kept_ours, kept_theirs = key in ours.state["jobs"], key in theirs.state["jobs"]
        raised = f"yours raised {ours.raised}" if ours.raised else None
        owner = _holder(jobs, theirs)
        if kept_ours and not kept_theirs:
            row = jobs.row(jobs.job_id)
            changed = row is not None and _changed(ours.state["jobs"][key], row, slack_s)
            note = raised or ("the job is still there" + (", changed instead of deleted" if changed else "")
                              + ": the ack deletes it, so no worker runs it again")
            if not raised and row is not None and row.worker is None and not changed:
                note = UNNAMED_NOTE
            elif not raised and row is not None and row.run_at <= 0 and not changed:
                note = (f"your lease ran out {in_words(row.run_at)}, but no one has claimed the job since: "
                        "lease_token is still its token and the work you finished counts, so delete it (a fence "
                        "by the clock would have it run again)")
            return diff.Finding(DELETES, got="the job is still there", expected="the job deleted", note=note)
        if had and not kept_ours and kept_theirs:
            now_whose = theirs.state["jobs"][key]["lease_token"]
            if now_whose is None:
                return diff.Finding(RETRIED, got="the job was deleted", expected="the job kept, for its retry",
                                    note="no one holds the job now, and your token is not its token: its retry is the "
                                         "only record that it still has to succeed")
            return diff.Finding(ZOMBIE, got="the job was deleted",
                                expected="the job kept, for the worker that holds it now",
                                note="that worker's run is now the only record that the job still has to succeed: if "
                                     "it fails, its retry is gone. Compare lease tokens, not times: its lease ends in "
                                     "the future too")
        differences = [m for m in mismatches(ours.state, theirs.state, slack_s=slack_s)]
        if differences:
            m = differences[0]
            what = _where(m)
            if m.key == key and m.table == "jobs" and owner != "ours":
                name, note = (RETRIED if owner == "nobody" else ZOMBIE), "a worker that lost its lease changes nothing"
            elif m.table == "jobs" and (other := jobs.row(m.key[0])) is not None and other.lease == "ours":
                name, note = ONLY_THAT, (f"your lease_token is job {m.key[0]}'s, not job {jobs.job_id}'s: the ack "
                                         f"deletes job {jobs.job_id} only, and only while the token is its own "
                                         "(WHERE id = ... AND lease_token = ...), never whichever job holds the token")
            else:
                name, note = ONLY_THAT, "an ack deletes its own job and touches nothing else"
            return diff.Finding(name, got=f"{what}: {_value(m.ours)}", expected=f"{what}: {_value(m.theirs)}",
                                note=raised or note)
        if ours.returned != theirs.returned or raised:
            if theirs.returned:
                return diff.Finding(ACK_TRUE, got=raised or short(ours.returned), expected="something true",
                                    note="the worker reads a false ack as a lost lease")
            return diff.Finding(ACK_FALSE, got=raised or short(ours.returned), expected="something false",
                                note=raised and "nothing to delete is an answer, not an error: return something false"
                                or "the worker logs a lost lease from a false ack: another worker may be running "
                                   "the job")
        return None

    def _beat(self, jobs: Jobs, ours: diff.Outcome, theirs: diff.Outcome, slack_s: float) -> diff.Finding | None:
        key = (jobs.job_id,)
        raised = f"yours raised {ours.raised}" if ours.raised else None
        owner = _holder(jobs, theirs)
        for m in mismatches(ours.state, theirs.state, slack_s=slack_s):
            if m.column in BOOKKEEPING:
                continue
            what = _where(m)
            got, expected = f"{what}: {_value(m.ours)}", f"{what}: {_value(m.theirs)}"
            if m.table == "jobs" and m.key == key and m.column == "run_at":
                before = jobs.row(jobs.job_id)
                if theirs.returned:  # the reference extended it
                    added = isinstance(m.ours, At) and before and \
                        abs(m.ours.seconds - (before.run_at + jobs.lease_s)) <= slack_s
                    note = raised or (f"lease_s = {jobs.lease_s:g}: run_at = now() + {jobs.lease_s:g} s" + (
                        "; yours added lease_s to the end of the current lease: a dead worker's job would stay hidden "
                        "longer with every beat it made" if added else ""))
                    if not raised and before and before.worker is None and not ours.returned:
                        note = UNNAMED_NOTE
                    return diff.Finding(EXTENDS, got=got, expected=expected, note=note)
                return diff.Finding(FENCED, got=got, expected=expected, note=raised or (
                    "fence the UPDATE with the lease token: WHERE id = ... AND lease_token = ...; the job is "
                    + ("another worker's now" if owner == "theirs" else "waiting for its retry, held by no one")))
            return diff.Finding(ONLY_RUN_AT, got=got, expected=expected, note=raised or (
                "a heartbeat moves its own job's run_at and nothing else" + (
                    ": its lease token is how the worker acks the job later" if m.column == "lease_token" else "")))
        if ours.returned != theirs.returned or raised:
            got = raised or short(ours.returned)
            if theirs.returned:
                return diff.Finding(BEAT_TRUE, got=got, expected="something true",
                                    note="the worker stops the job when its heartbeat says the lease is lost")
            if owner == "gone":
                return diff.Finding(BEAT_GONE, got=got, expected="something false",
                                    note="the job was acked or dead-lettered: there is no lease to keep")
            return diff.Finding(BEAT_FALSE, got=got, expected="something false",
                                note="the worker logs a lost lease from this answer: another worker may be "
                                     "running the job")
        return None


def _changed(stored: dict, row: Row, slack_s: float) -> bool:
    """Whether the answer changed the row it was asked to delete (marked it done instead, say)."""
    token = _token(row.lease, row.id)
    return (stored["lease_token"] != (token and str(token)) or stored["attempts"] != row.attempts
            or not isinstance(stored["run_at"], At) or abs(stored["run_at"].seconds - row.run_at) > slack_s)


# -- another worker between the answer's statements ------------------------------------------------------------

RACE_SLACK_S = 1.0  # runs with real commits and threads: times written and read a moment apart
B_LEASE_S = 20  # worker B's lease, unlike any lease_s the answer is given in the race


def _b_claims(then: str | None) -> Callable[[psycopg.Connection], str]:
    """Job 1's lease runs out and worker B claims it (a new token); then B hands it back, or acks it."""
    def act(conn: psycopg.Connection) -> str:
        conn.execute("UPDATE jobs SET run_at = now() - interval '1 second' WHERE id = 1")
        claimed = conn.execute(
            "UPDATE jobs SET run_at = now() + make_interval(secs => %s), lease_token = %s, attempts = attempts + 1, "
            "claimed_by = 'worker B', claimed_at = now() WHERE id = 1 AND run_at <= now() RETURNING id",
            [B_LEASE_S, B_TOKEN]).fetchone() is not None
        if claimed and then == "retry":
            conn.execute("UPDATE jobs SET run_at = now() + interval '60 seconds', lease_token = NULL, claimed_by = NULL, "
                         "last_error = 'HTTP 503' WHERE id = 1 AND lease_token = %s", [B_TOKEN])
        elif claimed and then == "ack":
            conn.execute("DELETE FROM jobs WHERE id = 1 AND lease_token = %s", [B_TOKEN])
        return "B claimed job 1" if claimed else "B found nothing to claim"
    return act


ACTS = [interleave.Act("your lease ran out and worker B claimed job 1 (a new token)", _b_claims(None)),
        interleave.Act("your lease ran out, worker B claimed job 1, failed and handed it back for a retry",
                       _b_claims("retry")),
        interleave.Act("your lease ran out, worker B claimed job 1 and acked it", _b_claims("ack"))]


def _locked_by(heartbeat: bool) -> interleave.Hold:
    """Job 1's row locked for a moment by a session that does not claim it, the lease still ours: only the
    token says whose the job is, and a locked row is not a lost lease."""
    if heartbeat:
        return interleave.InTransaction(
            "another session held job 1's row locked (SELECT ... FOR UPDATE, its transaction still open) when "
            "your beat ran; the lease was still yours", lambda conn: conn.execute(
                "SELECT id FROM jobs WHERE id = 1 FOR UPDATE").fetchone())
    return interleave.InTransaction(
        "a heartbeat thread with a connection of its own was extending job 1's lease (its UPDATE not yet "
        "committed, the row locked) when your ack ran; the lease was still yours", lambda conn: conn.execute(
            "UPDATE jobs SET run_at = now() + interval '20 seconds' WHERE id = 1 AND lease_token = %s",
            [OURS]).rowcount)


LOCKED_NOTE = ("the row was only locked for a moment, and the lease was still yours: the reference's statement "
               "waits for the lock and then {does}. An answer that skips a locked row (SKIP LOCKED) or gives up "
               "on it (NOWAIT, a lock_timeout, a try-lock) {fails}; let the statement wait.\n")
BETWEEN_NOTE = ("worker B's move fell between your statements: what your first statement checked was no longer "
                "true when the next one ran. Check and act in one statement (... WHERE id = ... AND lease_token "
                "= ...), so no one can come between them.\n")


def race(judge: Judge, box, *, heartbeat: bool):
    """Each of worker B's moves before each of the answer's statements after its first; then the job's row
    locked for a moment by another session while the answer runs."""
    jobs = Jobs((Row(1, 30.0), Row(2, 3600.0, "theirs", payload={"order_id": 9813})), 1,
                lease_s=5.0 if heartbeat else None)
    if judge.compare(jobs) is not None:  # wrong on these jobs alone: the search above says so, not a race
        return None
    arena = interleave.Arena(box.conn, box.connect, judge.reader, install, truth)
    try:
        found = interleave.explore(arena, jobs, answer=judge.learner(jobs), reference=judge.reference(jobs),
                                   acts=[(act, act) for act in ACTS], holds=[(_locked_by(heartbeat),) * 2],
                                   judge=lambda s, ours, allowed: judge.judge(s, ours, allowed, slack_s=RACE_SLACK_S))
        if found is None:
            found = _after_a_zombie(judge, arena, heartbeat=heartbeat)
    finally:
        arena.close()
    if found is None:
        return None
    finding, told = found
    if isinstance(told, str):  # after a zombie: its note is its own
        return finding, told
    note = BETWEEN_NOTE if told.between else LOCKED_NOTE.format(
        does="extends the lease" if heartbeat else "deletes the job",
        fails="says the lease is lost while it is still yours" if heartbeat else "leaves a finished job to run again")
    return replace(finding, note=note + (finding.note or "")), told


AFTER_A_ZOMBIE_NOTE = ("worker A's call, refused, ran first on A's connection and left something behind that kept "
                       "worker B out (a lock it never let go: pg_advisory_lock, a transaction left open?). B's lease is "
                       "current, so B's call must {does}: take nothing that outlives your statement")


def _after_a_zombie(judge: Judge, arena: interleave.Arena, *, heartbeat: bool) -> tuple[diff.Finding, str] | None:
    """Zombie A calls the answer with its old token (refused: B holds the job now), then worker B calls it
    on its own connection with its own token: B's call must do what the reference does for B."""
    jobs = Jobs((Row(1, 30.0, "theirs"),), 1, lease_s=5.0 if heartbeat else None)
    arena.reset(jobs)
    before, b_conn = arena.read(), arena.session("B").conn
    try:
        judge.call(arena.conn, *((the_job(jobs), jobs.lease_s) if heartbeat else (1, OURS)))
        if mismatches(arena.read(), before, slack_s=RACE_SLACK_S):
            return None  # the zombie's call was not refused: the search above judges that
        if heartbeat:
            b_job = replace(the_job(jobs), lease_token=_token("theirs", 1))
            done = judge.call(b_conn, b_job, jobs.lease_s)
        else:
            done = judge.call(b_conn, 1, _token("theirs", 1))
    finally:
        for conn in (arena.conn, b_conn):
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()
    row = arena.read()["jobs"].get((1,))
    call = "extend_lease(B's connection, job 1 as B claimed it, 5)" if heartbeat else \
        "ack(B's connection, 1, B's lease_token)"
    told = (f"job 1 (worker B's lease, ending in 30 s); zombie A's call first, with its old token, on A's "
            f"connection (refused); then {call}")
    raised = f"yours raised {done.error}; " if done.error else ""
    if heartbeat:
        end = row["run_at"] if row is not None else None
        extended = isinstance(end, At) and abs(end.seconds - 5.0) <= RACE_SLACK_S
        if extended and truth(done.value) and not done.error:
            return None
        got = "job 1's run_at: " + (_value(row["run_at"]) if row is not None else "no such row")
        return diff.Finding(EXTENDS if not extended else BEAT_TRUE, got=got if not extended else short(done.value),
                            expected="job 1's run_at: in 5 s" if not extended else "something true",
                            note=raised + AFTER_A_ZOMBIE_NOTE.format(does="extend its lease")), told
    if row is None and truth(done.value) and not done.error:
        return None
    return diff.Finding(DELETES if row is not None else ACK_TRUE,
                        got="the job is still there" if row is not None else (done.error or short(done.value)),
                        expected="the job deleted" if row is not None else "something true",
                        note=raised + AFTER_A_ZOMBIE_NOTE.format(does="delete the job")), told


def judged(t: Trial, answer: Callable, *, heartbeat: bool, seed: int | None):
    t.seed = DEFAULT_SEED if seed is None else seed
    box = t.scratch()
    reader = Reader.of(box.conn)
    judge = Judge(t, box.conn, reader, answer, heartbeat)
    verdicts = diff.Verdicts(t, BEAT_CHECKS if heartbeat else ACK_CHECKS)
    diff.search(verdicts, diff.in_turn(families(heartbeat)), judge.compare, seed=t.seed, count=SCENARIOS)
    diff.search(verdicts, diff.in_turn(families(heartbeat)), judge.compare, seed=t.seed, count=0,
                first=[other_jobs_token(heartbeat), *boundaries(heartbeat)])
    found = race(judge, box, heartbeat=heartbeat)
    if found is not None:
        verdicts.add(found[0], str(found[1]))
    verdicts.report()
    return box


@exercise_check("04.fenced_ack")
def fenced_ack_check(t: Trial, ack, seed=None):
    judged(t, ack, heartbeat=False, seed=seed)


@exercise_check("04.heartbeat")
def heartbeat_check(t: Trial, extend_lease, seed=None):
    box = judged(t, extend_lease, heartbeat=True, seed=seed)
    if all(result.passed for result in t.results):  # real workers only for an answer that passed the steps
        slow_job_under_a_short_lease(t, box, extend_lease, t.seed)


from course.grading.checks.lab04.workers import slow_job_under_a_short_lease  # noqa: E402 (the worker stage)
from course.grading.checks.lab04 import quiz  # noqa: E402,F401 (it registers the predictions and the quiz)
