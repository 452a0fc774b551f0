"""The reference job queue: a jobs table in PostgreSQL, and the few operations on it.

    enqueue      store a job, inside the caller's transaction
    claim        take visible jobs and lease them (FOR UPDATE SKIP LOCKED)
    ack          done: delete the job, if our lease still holds
    ack_and_claim  a worker's step: ack what finished and claim more, in one statement
    extend_lease the heartbeat of a long job
    fail         retry later with backoff, or move to the dead-letter table
    redrive      move dead jobs back
    stats        what a dashboard needs
    where, listen, fate, gone    what a worker asks besides (see course/core/worker.py)

Every function takes a psycopg connection and runs one statement from sql/queue.sql. With an
autocommit connection (course.infra.db.connect() gives one) each call commits on its own; inside
`with conn.transaction():` it commits or rolls back with everything else there. That is the point of a
queue in the database: an order and its receipt job are stored together or not at all.

Why one module: these are the operations on one table, each one statement of sql/queue.sql; they share
the job's shape and the lease rule, and reading them side by side is how the queue is learnt.
"""

from __future__ import annotations

import json
import traceback as tb
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from uuid import UUID

import psycopg
from psycopg import sql as pgsql
from psycopg.rows import RowMaker, class_row
from psycopg.types.json import JsonbLoader

from course.core import sql
from course.core import arguments
from course.core.arguments import MAX_SECONDS, NAME  # noqa: F401  (part of this API: the rules enqueue applies)
from course.core.payloads import MAX_PAYLOAD_BYTES, MAX_PAYLOAD_DEPTH, to_json  # noqa: F401  (the limits: part of this API)
from course.core.backoff import MAX_ATTEMPTS, backoff_delay
from course.errors import InvalidArgument, InvalidJob, PermanentError  # noqa: F401  (PermanentError: part of this API)

DEFAULT_QUEUE = "default"
DEFAULT_LEASE_S = 30.0  # Amazon SQS's default visibility timeout
NOTIFY_MAX_BYTES = 7900  # pg_notify refuses a payload of 8,000 bytes or more: bytes, not characters
LAST_ATTEMPT_LOST = "its last attempt never reported back: the worker stopped or lost its lease"


@dataclass(frozen=True)
class Job:
    """A claimed job. `lease_token` proves the claim: ack, extend and fail only work while it is current.

    (A lease's length, everywhere, is `lease_s` seconds; its end is the job's run_at, `lease_expires_at`.)
    """

    id: int
    queue: str
    type: str
    payload: dict
    priority: int
    attempts: int
    max_attempts: int
    lease_token: UUID
    lease_expires_at: datetime


@dataclass(frozen=True)
class UnreadablePayload:
    """A payload PostgreSQL stored but Python cannot read back: JSON nested deeper than json.loads goes
    (another producer wrote it with SQL; enqueue refuses one). The claim dead-letters such a job."""

    size: int  # bytes of its JSON text


@dataclass(frozen=True)
class DeadJob:
    id: int
    queue: str
    type: str
    payload: dict
    attempts: int
    max_attempts: int
    reason: str
    error: str | None
    traceback: str | None
    died_at: datetime


@dataclass(frozen=True)
class QueueStats:
    queue: str
    ready: int  # visible now: waiting, or left behind by a worker whose lease ran out
    in_flight: int  # claimed, lease running
    scheduled: int  # waiting for their run_at (a delay or a retry's backoff)
    oldest_ready_age_s: float  # since the oldest waiting job became due (not since it was enqueued)


@dataclass(frozen=True)
class Stats:
    queues: list[QueueStats] = field(default_factory=list)
    dead_letters: int = 0
    dead_tuples: int = 0  # in the jobs table; PostgreSQL's statistics lag by a second or so

    def queue(self, name: str = DEFAULT_QUEUE) -> QueueStats:
        for row in self.queues:
            if row.queue == name:
                return row
        return QueueStats(name, 0, 0, 0, 0.0)

    @property
    def depth(self) -> int:
        """Jobs not yet done, all queues."""
        return sum(q.ready + q.in_flight + q.scheduled for q in self.queues)

    @property
    def oldest_ready_age_s(self) -> float:
        return max((q.oldest_ready_age_s for q in self.queues), default=0.0)


# -- set-up ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """Where a connection's tables resolve (see `where`)."""

    schema: str | None  # None: no schema on the search path exists
    search_path: str
    installed: bool  # the jobs table is there


def where(conn: psycopg.Connection) -> Place:
    """The connection's schema and whether the queue is installed there."""
    _usable(conn)
    with conn.cursor(row_factory=class_row(Place)) as cursor:
        return cursor.execute(sql.query("queue", "where")).fetchone()


def install(conn: psycopg.Connection) -> None:
    """Create the queue's tables in the connection's schema (if they are not there yet)."""
    place = where(conn)
    if place.schema is None:
        raise InvalidArgument(f"The schema {place.search_path!r} does not exist: create it first, e.g. "
                              f"course.infra.db.reset_schema({place.search_path!r}). Nothing was installed.")
    conn.execute(sql.script("schema"))


def listen(conn: psycopg.Connection) -> None:
    """Receive on `conn` the notifications enqueue sends (conn.notifies()): the payload is the queue's name.
    Takes effect at commit; with autocommit, at once. The statement is `LISTEN "jobs:<schema>"`."""
    _usable(conn)
    channel = conn.execute(sql.query("queue", "channel")).fetchone()[0]
    conn.execute(pgsql.SQL("LISTEN {}").format(pgsql.Identifier(channel)))


# -- checking what callers give us -------------------------------------------------------------------


def _usable(conn: psycopg.Connection) -> None:
    if conn.closed:
        raise InvalidArgument("The connection is closed: open a new one with course.infra.db.connect(). "
                              "Nothing was written.")


def payload_json(payload: object) -> str:
    """A job's payload as the JSON text the queue stores, or InvalidJob saying what to pass instead."""
    return to_json(payload, error=InvalidJob, nothing_done="Nothing was enqueued.",
                   advice="Put ids in the job, not data: {'order_id': 9812}, and let the worker read the "
                          "rest fresh from the database.")


def clean_text(text: str) -> str:
    """Text PostgreSQL can store: `text` and `jsonb` cannot hold NUL, so each one becomes U+FFFD; a lone
    surrogate (a bad decode's leftover, not Unicode) cannot even be sent as UTF-8, so it is written out
    as its escape, \\udc80.

    Everything the queue copies from an exception (its message, its traceback) goes through here: an error
    message is whatever a handler's libraries put in it, and one that cannot be stored must not stop the
    job from being retried or buried.
    """
    text = text.replace("\x00", "\N{REPLACEMENT CHARACTER}")
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            return text.encode("utf-8", "backslashreplace").decode()
    return text


def _storable(kind: str, value: object, *, longest: int, then: str) -> str:
    """A string PostgreSQL can store as text (no NUL, no lone surrogate) of 1 to `longest` characters."""
    if isinstance(value, str) and 0 < len(value) <= longest and "\x00" not in value:
        try:
            value.encode()
            return value
        except UnicodeEncodeError:
            pass
    raise InvalidJob(f"{kind} must be a non-empty string of up to {longest} characters that PostgreSQL can store "
                     f"(no NUL, no lone surrogate); got {value!r:.80}. {then}")


def cut_to_bytes(text: str, limit: int) -> str:
    """`text` cut to at most `limit` bytes of UTF-8, at a character boundary."""
    data = text.encode()
    if len(data) <= limit:
        return text
    return data[:limit].decode(errors="ignore")  # drops the half of a character the cut left behind


def _run_at(value: object):
    if value is None:
        return None
    if not isinstance(value, datetime) or value.tzinfo is None or value.utcoffset() is None:
        raise InvalidArgument(f"run_at must be a datetime with a time zone, e.g. datetime.now(timezone.utc) + "
                              f"timedelta(hours=1); got {value!r}. Nothing was written.")
    return value


def _new_job(type: str, payload, queue: str, priority: int, delay_s: float, max_attempts: int,
             unique_key: str | None) -> dict:
    return {
        "type": arguments.name("job type", type),
        "queue": arguments.name("queue", queue),
        "payload": payload_json(payload),
        "priority": arguments.whole("priority", priority, low=-32768, high=32767,
                                   then="Higher runs first; 0 is the default. Nothing was written."),
        "delay_s": arguments.seconds("delay_s", delay_s, allow_zero=True, then="Nothing was written."),
        "max_attempts": arguments.whole("max_attempts", max_attempts, low=1, high=1000,
                                        then="It counts runs, the first one included: 1 means never retry. "
                                             "Nothing was written."),
        "unique_key": None if unique_key is None else _storable("unique_key", unique_key, longest=200,
                                                                then="Nothing was written."),
    }


# -- producing -----------------------------------------------------------------------------------


def enqueue(conn: psycopg.Connection, type: str, payload: Mapping | None = None, *,
            queue: str = DEFAULT_QUEUE, priority: int = 0, delay_s: float = 0.0, run_at: datetime | None = None,
            max_attempts: int = MAX_ATTEMPTS, unique_key: str | None = None, notify: bool = True) -> int | None:
    """Store a job; return its id, or None when `unique_key` is already held by an unfinished job.

    Runs in the connection's current transaction, if there is one. `notify` wakes listening workers
    when the transaction commits (polling finds the job anyway, a little later).
    """
    _usable(conn)
    if run_at is not None and delay_s != 0.0:
        raise InvalidArgument(f"enqueue() got both delay_s={delay_s!r} and run_at={run_at!r}: give delay_s or "
                              f"run_at, not both (delay_s counts from now, run_at is a moment). Nothing was written.")
    job = _new_job(type, payload, queue, priority, delay_s, max_attempts, unique_key)
    row = conn.execute(sql.query("queue", "enqueue"), {**job, "run_at": _run_at(run_at)}).fetchone()
    if row and notify:
        conn.execute(sql.query("queue", "notify"), {"queue": job["queue"]})
    return row[0] if row else None


def enqueue_many(conn: psycopg.Connection, type: str, payloads: Iterable[Mapping], *,
                 queue: str = DEFAULT_QUEUE, priority: int = 0, delay_s: float = 0.0,
                 max_attempts: int = MAX_ATTEMPTS, unique_keys: Iterable[str | None] | None = None,
                 notify: bool = True) -> list[int]:
    """Store many jobs of one type in one statement; return the ids stored (duplicates store nothing).

    Every payload is checked before anything is written: one bad payload stores none of them.
    """
    _usable(conn)
    payloads = list(payloads)
    keys = list(unique_keys) if unique_keys is not None else [None] * len(payloads)
    if len(keys) != len(payloads):
        raise InvalidArgument(f"{len(payloads)} payloads but {len(keys)} unique_keys: give one key per payload.")
    jobs = []
    for position, (payload, key) in enumerate(zip(payloads, keys)):
        try:
            jobs.append(_new_job(type, payload, queue, priority, delay_s, max_attempts, key))
        except InvalidJob as error:
            raise InvalidJob(f"payload number {position} (counting from 0): {error}") from None
    if not jobs:
        return []
    columns = {
        "queues": [j["queue"] for j in jobs], "types": [j["type"] for j in jobs],
        "payloads": [j["payload"] for j in jobs], "priorities": [j["priority"] for j in jobs],
        "delays_s": [j["delay_s"] for j in jobs], "max_attempts": [j["max_attempts"] for j in jobs],
        "unique_keys": [j["unique_key"] for j in jobs],
    }
    ids = [row[0] for row in conn.execute(sql.query("queue", "enqueue_many"), columns)]
    if ids and notify:
        conn.execute(sql.query("queue", "notify"), {"queue": queue})
    return ids


# -- consuming -----------------------------------------------------------------------------------


def claim(conn: psycopg.Connection, queue: str = DEFAULT_QUEUE, *, limit: int = 1,
          lease_s: float = DEFAULT_LEASE_S, worker: str | None = None) -> list[Job]:
    """Lease up to `limit` visible jobs, most urgent first; [] when there is none.

    Most urgent: the highest priority, then the longest due (the earliest run_at), then the lowest id;
    the batch comes back in that order.

    Each claimed job is hidden from other workers for `lease_s` seconds and its attempts go up by one.
    """
    _usable(conn)
    params = _claim_params(queue, limit, lease_s, worker)
    while True:
        with conn.cursor(row_factory=_job_row) as cursor:
            cursor.adapters.register_loader("jsonb", _PayloadLoader)  # this cursor's only: ~1 us
            jobs = cursor.execute(sql.query("queue", "claim"), params).fetchall()
        runnable = _runnable(conn, jobs)
        if runnable or not jobs:
            return runnable


def _claim_params(queue: str, limit: int, lease_s: float, worker: str | None) -> dict:
    return {
        "queue": arguments.name("queue", queue),
        "limit": arguments.whole("limit", limit, low=1, high=10_000, then="Nothing was claimed."),
        "lease_s": arguments.seconds("lease_s", lease_s, then="Nothing was claimed."),
        "worker": None if worker is None else _storable("worker", worker, longest=200, then="Nothing was claimed."),
    }


def _runnable(conn: psycopg.Connection, jobs: list[Job]) -> list[Job]:
    """The claimed jobs to run: those with a run left and a payload Python can read. The others go to the
    dead-letter table."""
    runnable = []
    for job in jobs:
        if job.attempts > job.max_attempts:
            # Its worker died during its last attempt and the lease ran out: it has had all its runs.
            # Dead-letter it rather than run it once more (SQS does the same after maxReceiveCount
            # receives): max_attempts=1 means "never twice", crash or not.
            bury(conn, job, "max_attempts", LAST_ATTEMPT_LOST)
        elif isinstance(job.payload, UnreadablePayload):
            bury(conn, job, "bad_payload", f"payload is nested deeper than Python's json can read "
                                           f"({job.payload.size:,} bytes of JSON); enqueue refuses more than "
                                           f"{MAX_PAYLOAD_DEPTH} levels")
        else:
            runnable.append(job)
    return runnable


def _load_payload(data: bytes):
    """A jsonb value as Python, or UnreadablePayload where json.loads gives up (RecursionError): one such
    row, written with SQL by another producer, must not make every claim raise."""
    try:
        return json.loads(data)
    except RecursionError:
        return UnreadablePayload(len(data))


class _PayloadLoader(JsonbLoader):
    _loads = staticmethod(_load_payload)


def _job_row(cursor: psycopg.Cursor) -> RowMaker[Job]:
    """A Job per row, from its columns in order. psycopg's class_row(Job) builds a dict of keyword
    arguments for every row: fetching 100-row batches cost 7-9 us of CPU a row that way, 5.5-5.8
    this way, 4.0-4.3 as plain tuples (a loaded machine, 2026-12-01). The column names are checked
    once per statement instead, so a reordered RETURNING fails rather than filling the wrong fields."""
    names = [column.name for column in cursor.description or ()]
    if names != _JOB_FIELDS:
        raise RuntimeError(f"the claim returns columns {names}; a Job is built from {_JOB_FIELDS}, in that order")
    return lambda values: Job(*values)


_JOB_FIELDS = [f.name for f in fields(Job)]


def _lost_and_job_row(cursor: psycopg.Cursor) -> RowMaker[tuple[list[int] | None, Job | None]]:
    """ack_and_claim's rows: its first column (the ids whose lease was lost), then a Job as _job_row
    makes it, or None in the one row it returns when it claimed nothing."""
    names = [column.name for column in cursor.description or ()]
    if names[1:] != _JOB_FIELDS:
        raise RuntimeError(f"ack_and_claim returns columns {names}; after `lost` a Job is built from "
                           f"{_JOB_FIELDS}, in that order")
    return lambda values: (values[0], None if values[1] is None else Job(*values[1:]))


def claim_one(conn: psycopg.Connection, queue: str = DEFAULT_QUEUE, *, lease_s: float = DEFAULT_LEASE_S,
              worker: str | None = None) -> Job | None:
    jobs = claim(conn, queue, limit=1, lease_s=lease_s, worker=worker)
    return jobs[0] if jobs else None


def ack_and_claim(conn: psycopg.Connection, jobs: Iterable[Job], queue: str = DEFAULT_QUEUE, *, limit: int,
                  lease_s: float = DEFAULT_LEASE_S, worker: str | None = None) -> tuple[set[int], list[Job]]:
    """ack_many(jobs) and claim(...) in one statement: the ids whose lease still held, and the jobs claimed.

    A worker's step once jobs have finished and slots are free: one round trip and one commit, where the
    two calls in a transaction take four round trips (BEGIN, ack, claim, COMMIT).
    """
    _usable(conn)
    jobs = list(jobs)
    params = {**_claim_params(queue, limit, lease_s, worker),
              "ids": [j.id for j in jobs], "lease_tokens": [j.lease_token for j in jobs]}
    with conn.cursor(row_factory=_lost_and_job_row) as cursor:
        cursor.adapters.register_loader("jsonb", _PayloadLoader)  # as claim's: a payload too deep is buried
        rows = cursor.execute(sql.query("queue", "ack_and_claim"), params).fetchall()
    lost = rows[0][0] or ()  # the statement returns a row even when it claims nothing
    claimed = [job for _, job in rows if job is not None]
    runnable = _runnable(conn, claimed)
    if claimed and not runnable:  # every one was out of attempts: claim again, as claim() does
        runnable = claim(conn, queue, limit=limit, lease_s=lease_s, worker=worker)
    return set(params["ids"]) - set(lost), runnable


def ack(conn: psycopg.Connection, job: Job) -> bool:
    """Delete a finished job. False means the lease was lost: another worker owns the job now."""
    _usable(conn)
    return conn.execute(sql.query("queue", "ack"), {"id": job.id, "lease_token": job.lease_token}).rowcount == 1


def ack_many(conn: psycopg.Connection, jobs: Iterable[Job]) -> set[int]:
    """Delete many finished jobs in one statement; return the ids whose lease still held."""
    _usable(conn)
    jobs = list(jobs)
    if not jobs:
        return set()
    params = {"ids": [j.id for j in jobs], "lease_tokens": [j.lease_token for j in jobs]}
    return {row[0] for row in conn.execute(sql.query("queue", "ack_many"), params)}


def extend_lease(conn: psycopg.Connection, job: Job, lease_s: float = DEFAULT_LEASE_S) -> datetime | None:
    """Keep a long job hidden for another `lease_s` seconds; None if the lease is no longer ours."""
    _usable(conn)
    params = {"id": job.id, "lease_token": job.lease_token,
              "lease_s": arguments.seconds("lease_s", lease_s, then="Nothing was written.")}
    row = conn.execute(sql.query("queue", "extend_lease"), params).fetchone()
    return row[0] if row else None


def extend_leases(conn: psycopg.Connection, jobs: Iterable[Job], lease_s: float = DEFAULT_LEASE_S) -> set[int]:
    """The heartbeat for every job a worker is running, in one statement; returns the ids still ours."""
    _usable(conn)
    jobs = list(jobs)
    if not jobs:
        return set()
    params = {"ids": [j.id for j in jobs], "lease_tokens": [j.lease_token for j in jobs],
              "lease_s": arguments.seconds("lease_s", lease_s, then="Nothing was written.")}
    return {row[0] for row in conn.execute(sql.query("queue", "extend_leases"), params)}


# -- failing -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Retry:
    delay_s: float


@dataclass(frozen=True)
class Dead:
    reason: str  # permanent, max_attempts, unknown_type, bad_payload


def decide(job: Job, *, permanent: bool, backoff: Callable[[int], float] = backoff_delay) -> Retry | Dead:
    """What to do with a job that just failed: retry after `backoff(attempts)` seconds, or give up.

    (A provider's Retry-After is not consulted here: lab 07's exercise adds it, and shows why.)
    """
    if permanent:
        return Dead("permanent")
    if job.attempts >= job.max_attempts:
        return Dead("max_attempts")
    return Retry(backoff(job.attempts))


def describe_error(error: BaseException | str) -> tuple[str, str | None]:
    """(one line, traceback) for storing with the job."""
    if isinstance(error, BaseException):
        message = str(error)
        line = f"{type(error).__name__}: {message}" if message else type(error).__name__
        trace = "".join(tb.format_exception(error)) if error.__traceback__ else None
        return clean_text(line[:2000]), None if trace is None else clean_text(trace)
    return clean_text(str(error)[:2000]), None


def retry(conn: psycopg.Connection, job: Job, delay_s: float, error: BaseException | str) -> bool:
    _usable(conn)
    line, _ = describe_error(error)
    params = {"id": job.id, "lease_token": job.lease_token, "error": line,
              "delay_s": arguments.seconds("delay_s", delay_s, allow_zero=True, then="Nothing was written.")}
    return conn.execute(sql.query("queue", "retry"), params).rowcount == 1


def bury(conn: psycopg.Connection, job: Job, reason: str, error: BaseException | str) -> bool:
    """Move the job to the dead-letter table and alert listeners. False if the lease was lost."""
    _usable(conn)
    reason = _storable("reason", reason, longest=200, then="Nothing was written.")
    line, trace = describe_error(error)
    params = {"id": job.id, "lease_token": job.lease_token, "reason": reason, "error": line, "traceback": trace}
    with conn.transaction():
        moved = conn.execute(sql.query("queue", "bury"), params).fetchone() is not None
        if moved:
            message = f"job {job.id} ({job.type}) dead after {job.attempts} attempt(s): {reason}: {line}"
            conn.execute(sql.query("queue", "alert_dead"), {"message": cut_to_bytes(message, NOTIFY_MAX_BYTES)})
    return moved


def fail(conn: psycopg.Connection, job: Job, error: BaseException | str, *, permanent: bool | None = None,
         backoff: Callable[[int], float] = backoff_delay) -> Retry | Dead | None:
    """Record a failed run: retry with backoff, or dead-letter it. None if the lease was lost.

    `permanent` defaults to whether `error` is a PermanentError. `backoff(attempt)` gives the seconds to
    wait before the next run (course.core.backoff.backoff_delay: exponential, full jitter, capped).
    """
    if permanent is None:
        permanent = isinstance(error, PermanentError)
    outcome = decide(job, permanent=permanent, backoff=backoff)
    if isinstance(outcome, Retry):
        done = retry(conn, job, outcome.delay_s, error)
    else:
        done = bury(conn, job, outcome.reason, error)
    return outcome if done else None


# -- when a connection dropped before its answer came -------------------------------------------------


def fate(conn: psycopg.Connection, job: Job) -> str:
    """Where `job` is after a fail() whose answer was lost with the connection (and a retry of which found
    the lease gone): "dead", "retry scheduled" (our first report most likely committed) or "unknown" (the
    job has moved on: acked, or claimed again by another worker)."""
    _usable(conn)
    row = conn.execute(sql.query("queue", "fate"), {"id": job.id, "attempts": job.attempts}).fetchone()
    return row[0] if row else "unknown"


def gone(conn: psycopg.Connection, ids: Iterable[int]) -> set[int]:
    """Which of these jobs are in neither the jobs nor the dead-letter table."""
    _usable(conn)
    return {row[0] for row in conn.execute(sql.query("queue", "gone"), {"ids": list(ids)})}


# -- dead letters and numbers --------------------------------------------------------------------


def redrive(conn: psycopg.Connection, ids: Iterable[int] | None = None, *, type: str | None = None,
            queue: str | None = None) -> list[int]:
    """Move dead jobs back to their queue with attempts reset to 0; return the ids moved.

    With no arguments, every dead job. Fix the cause first, or they will be back.
    """
    _usable(conn)
    params = {
        "ids": None if ids is None else _job_ids(ids, then="Nothing was moved."),
        "type": None if type is None else arguments.name("job type", type),
        "queue": None if queue is None else arguments.name("queue", queue),
    }
    with conn.transaction():
        moved = conn.execute(sql.query("queue", "redrive"), params).fetchall()
        for queue_name in {queue_name for _, queue_name in moved}:
            conn.execute(sql.query("queue", "notify"), {"queue": queue_name})
    return [job_id for job_id, _ in moved]


def _job_ids(ids: object, *, then: str) -> list[int]:
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        raise InvalidArgument(f"ids must be a list of job ids, e.g. [9812, 9813]; got {ids!r:.80}. {then}")
    return [arguments.whole("a job id", job_id, "an id from dead_jobs(), e.g. 9812", low=1, high=2**63 - 1,
                            then=then) for job_id in ids]


def dead_jobs(conn: psycopg.Connection, limit: int = 50) -> list[DeadJob]:
    """The most recent dead jobs, newest first."""
    _usable(conn)
    limit = arguments.whole("limit", limit, "how many of the newest dead jobs to show, e.g. 50", low=1,
                            high=10_000_000)
    with conn.cursor(row_factory=class_row(DeadJob)) as cursor:
        cursor.adapters.register_loader("jsonb", _PayloadLoader)
        return cursor.execute(sql.query("queue", "dead_jobs"), {"limit": limit}).fetchall()


def stats(conn: psycopg.Connection) -> Stats:
    _usable(conn)
    with conn.cursor(row_factory=class_row(QueueStats)) as cursor:
        queues = cursor.execute(sql.query("queue", "queue_stats")).fetchall()
    dead_letters, dead_tuples = conn.execute(sql.query("queue", "table_stats")).fetchone()
    return Stats(queues, dead_letters, dead_tuples)
