"""Lab 03: a queue in Postgres. The learner's claim statements run on the lesson's simple jobs table, from
one connection step by step and then from many connections at once."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

import psycopg
from psycopg.types.json import Jsonb

from course.grading.trial import Trial
from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask

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

CONNECTIONS = 10  # the many-connections checks: enough to collide every time, cheap on two cores
LOCK_TIMEOUT = "500ms"  # how long a claim may wait on a row lock before we call it waiting
WAITED = "waited for the lock"


def _simple_queue(t: Trial):
    box = t.scratch(queue_tables=False)
    box.conn.execute(JOBS_TABLE)
    return box


def _add_jobs(conn, seconds_ago: list[float], type: str = "send_receipt") -> list[int]:
    """One job per entry, made visible that many seconds ago (negative: scheduled for later).
    Its payload names an order from 9812 on, in the order given."""
    return [conn.execute(
        "INSERT INTO jobs (type, payload, run_at) VALUES (%s, %s, now() - make_interval(secs => %s)) RETURNING id",
        [type, Jsonb({"order_id": 9812 + n}), ago]).fetchone()[0]
        for n, ago in enumerate(seconds_ago)]


def _due_exactly_now(t: Trial, conn, claim_fn, during: str):
    """(job id, what the claim returned) for a job whose run_at is exactly now(): inside one transaction
    now() stands still, so the claim compares run_at with the very instant it was stored at (the
    boundary: due means run_at <= now()). Rolled back afterwards."""
    with conn.transaction(force_rollback=True):
        job = conn.execute("INSERT INTO jobs (type, payload, run_at) VALUES ('send_receipt', %s, now()) RETURNING id",
                           [Jsonb({"order_id": 9899})]).fetchone()[0]
        return job, t.call(claim_fn, during=during)


def _id_of(row) -> object:
    """The id in a claimed row: (id, type, payload), a list, or a dict with "id"."""
    if isinstance(row, dict):
        return row.get("id")
    try:
        return row[0]
    except (TypeError, IndexError, KeyError):
        return None


def _looks_like_a_row(row) -> bool:
    if isinstance(row, dict):
        return {"id", "type", "payload"} <= set(row)
    return isinstance(row, (tuple, list)) and len(row) >= 3 and isinstance(row[0], int)


def _lease_of(conn, job_id) -> tuple[int, float | None]:
    """(attempts, seconds until locked_until) of one job."""
    return conn.execute("SELECT attempts, extract(epoch FROM locked_until - now())::float8 FROM jobs WHERE id = %s",
                        [job_id]).fetchone() or (None, None)


def _around(seconds: float | None, target: float) -> bool:
    return seconds is not None and target - 1.5 <= seconds <= target + 1.5


def _claim_while_a_row_is_locked(t: Trial, box, locked_id: int, claim_once: Callable, during: str):
    """Hold a row lock on `locked_id` from another connection (a worker in the middle of its claim), then
    claim. Returns what the claim returned, or WAITED when it waited for that lock until lock_timeout."""

    def claim_or_wait():
        try:
            return claim_once()
        except psycopg.errors.LockNotAvailable:
            return WAITED

    holder = box.connect()
    try:
        with holder.transaction():
            holder.execute("SELECT id FROM jobs WHERE id = %s FOR UPDATE", [locked_id])
            box.conn.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
            try:
                return t.call(claim_or_wait, during=during)
            finally:
                box.conn.execute("RESET lock_timeout")
    finally:
        holder.close()


ROW_LOCK = re.compile(r"\bFOR\s+(NO\s+KEY\s+)?(UPDATE|SHARE)\b", re.I)


class _Recorded(psycopg.Cursor):
    """A cursor that writes down each statement it runs and whether it ran as a transaction of its own
    (autocommit, no transaction open): what the check needs to name why a row lock did not protect."""

    log: list[tuple[str, bool]]  # set per connection class, below

    def execute(self, query, params=None, **kwargs):
        text = query.as_string(self.connection) if hasattr(query, "as_string") else str(query)  # sql.SQL too
        alone = self.connection.autocommit and \
            self.connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        self.log.append((text, alone))
        return super().execute(query, params, **kwargs)


def _recording(conn: psycopg.Connection, log: list[tuple[str, bool]]) -> psycopg.Connection:
    conn.cursor_factory = type("RecordedCursor", (_Recorded,), {"log": log})
    return conn


def lock_released_at_once(log: list[tuple[str, bool]]) -> bool:
    """A SELECT ... FOR UPDATE (or SHARE) that ran as its own autocommit transaction: it took the row lock,
    and the lock ended when that SELECT committed, before any later statement could mark the row."""
    return any(alone and ROW_LOCK.search(text) and _only_reads(text) for text, alone in log)


def _only_reads(text: str) -> bool:
    """A SELECT (or a WITH ... SELECT) that writes nothing: its lock is all it leaves, until it commits."""
    return text.lstrip().upper().startswith(("SELECT", "WITH")) and not WRITES.search(ROW_LOCK.sub("", text))


WRITES = re.compile(r"\b(UPDATE\s+\w+(\s+\w+)?\s+SET|DELETE\s+FROM|INSERT\s+INTO)\b", re.I)


SPLIT_CLAIM = ("your SELECT ... FOR UPDATE did lock the row, but it ran as a transaction of its own (the "
               "connection is in autocommit), and the lock ended when that SELECT committed — before your UPDATE "
               "marked the row, so another connection read the same job in between. Lock and mark in one "
               "statement (UPDATE jobs SET ... WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED) RETURNING ...), "
               "or run both inside one `with conn.transaction():`")
NO_LOCK = "two workers read the same 'next job' before either marked it: the claim needs a row lock"


def _claim_from_many_connections(box, claim_rows: Callable, total_jobs: int,
                                 log: list[tuple[str, bool]] | None = None) -> tuple[list[tuple[int, int]], str | None]:
    """Every connection claims until it finds nothing. Returns [(connection number, job id)] and the first
    error any connection raised. Stops early if far more claims come back than there are jobs. Each
    statement the claims run is written down in `log` (text, ran as its own transaction)."""
    claims: list[tuple[int, int]] = []
    errors: list[str] = []
    start = threading.Barrier(CONNECTIONS)
    conns = [_recording(box.connect(), log if log is not None else []) for _ in range(CONNECTIONS)]

    def worker(number: int, conn) -> None:
        try:
            start.wait()
            while len(claims) < 3 * total_jobs:
                rows = claim_rows(conn)
                if not rows:
                    return
                claims.extend((number, _id_of(row)) for row in rows)
        except Exception as error:  # reported, not raised: the other connections finish first
            errors.append(f"{type(error).__name__}: {error}".strip())

    threads = [threading.Thread(target=worker, args=(n, c)) for n, c in enumerate(conns)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for conn in conns:
        conn.close()
    return claims, (errors[0] if errors else None)


def _expect_each_job_once(t: Trial, claims: list[tuple[int, int]], job_ids: list[int], how: str,
                          log: list[tuple[str, bool]] = ()) -> None:
    by_job: dict[int, list[int]] = {}
    for number, job_id in claims:
        by_job.setdefault(job_id, []).append(number)
    twice = sorted(j for j, who in by_job.items() if len(who) > 1)
    example = None
    if twice:
        who = by_job[twice[0]]
        example = f"job {twice[0]} was returned to connections {who[0]} and {who[1]} ({how})"
    t.expect(f"no job is claimed twice when {CONNECTIONS} connections claim at once", ok=not twice,
             got=f"{len(twice)} of {len(job_ids)} jobs claimed more than once" if twice else "each job once",
             expected="each job once", example=example,
             note=(SPLIT_CLAIM if lock_released_at_once(log) else NO_LOCK) if twice else None)
    if twice:
        return  # the claims were stopped early, so "never claimed" would mislead
    missed = [j for j in job_ids if j not in by_job]
    t.expect("every waiting job is claimed by someone before the claims come back empty", ok=not missed,
             got=f"{len(missed)} never claimed (first: job {missed[0]})" if missed else "all claimed",
             expected="all claimed", example=f"{len(job_ids)} jobs, {how}")


# -- 03.claim ----------------------------------------------------------------------------------------


@exercise_check("03.claim")
def claim_check(t: Trial, claim):
    box = _simple_queue(t)
    conn = box.conn
    got = t.call(claim, conn, 30, during="claim(conn, 30) on an empty jobs table")
    t.require("returns None when no job is waiting", got=got, expected=None, example="an empty jobs table")

    # Ids are not in run_at order, so "oldest" and "lowest id" give different answers.
    first, oldest, newest = _add_jobs(conn, [2, 5, 1])
    three = "three jobs made visible 2, 5 and 1 seconds ago (ids in that order)"
    got = t.call(claim, conn, 45, during="claim(conn, 45) with three jobs waiting")
    t.require("returns the claimed job as a row (id, type, payload)", ok=_looks_like_a_row(got), got=got,
              expected=(oldest, "send_receipt", {"order_id": 9813}), example=three)
    t.expect("takes the oldest visible job first (the smallest run_at)", got=_id_of(got), expected=oldest,
             example=three)
    attempts, lease = _lease_of(conn, _id_of(got))
    t.expect("counts the attempt: attempts goes from 0 to 1", got=attempts, expected=1, example=three)
    t.expect("hides the job for lease_s seconds: locked_until = now() + lease_s", ok=_around(lease, 45),
             got=None if lease is None else f"{lease:.1f} s from now", expected="45 s from now",
             example="claim(conn, 45)", note=None if lease is not None else "locked_until was left NULL")

    got = t.call(claim, conn, 45, during="a second claim(conn, 45)")
    t.expect("passes over a job whose lease has not run out", got=_id_of(got), expected=first,
             example=f"{three}; job {oldest} was just claimed for 45 s, so the next claim must give job {first}")

    later = _add_jobs(conn, [-3600])[0]
    t.call(claim, conn, 45, during="a third claim(conn, 45)")  # takes `newest`
    got = t.call(claim, conn, 45, during="claim(conn, 45) when every job is leased or scheduled for later")
    t.expect("leaves a job whose run_at is still in the future", got=got, expected=None,
             example=f"every job leased, and job {later} with run_at an hour from now",
             note="a job with run_at in the future is a retry's backoff or a delayed job: not ready yet"
             if _id_of(got) == later else None)

    due, got = _due_exactly_now(t, conn, lambda: claim(conn, 45),
                                "claim(conn, 45) in the transaction that stored a job with run_at = now()")
    t.expect("a job due exactly now (run_at = now(), the boundary) is claimed", got=_id_of(got), expected=due,
             example=f"every other job leased or scheduled for later; job {due} stored with run_at = now() in the "
                     "claim's own transaction", note="due means run_at <= now(), not <" if got is None else None)

    conn.execute("UPDATE jobs SET locked_until = now() - interval '1 second' WHERE id = %s", [oldest])
    got = t.call(claim, conn, 45, during="claim(conn, 45) after a lease ran out")
    t.expect("claims again a job whose lease ran out (its worker crashed)", got=_id_of(got), expected=oldest,
             example=f"job {oldest}'s locked_until set to 1 second ago, as if its worker died")
    attempts, _ = _lease_of(conn, oldest)
    t.expect("the second claim counts a second attempt", got=attempts, expected=2,
             example=f"job {oldest} claimed, its lease ran out, claimed again")

    # Someone else is in the middle of claiming the oldest job: a claim must take the next one, at once.
    conn.execute("TRUNCATE jobs")
    held, second, _ = _add_jobs(conn, [3, 2, 1])
    got = _claim_while_a_row_is_locked(t, box, held, lambda: claim(conn, 30),
                                       during="claim(conn, 30) while another connection holds a row lock")
    t.expect("does not wait for a row another worker is claiming: takes the next one",
             got=got if got == WAITED else _id_of(got), expected=second,
             example=f"another connection holds a lock on job {held} (the oldest); job {second} is free",
             note=f"the claim waited for the lock until lock_timeout ({LOCK_TIMEOUT}) gave up: with twenty workers, "
                  "nineteen would queue behind the first. SKIP LOCKED passes over locked rows instead."
             if got == WAITED else None)

    conn.execute("TRUNCATE jobs")
    job_ids = _add_jobs(conn, [1.0] * 200)
    log: list[tuple[str, bool]] = []
    claims, error = _claim_from_many_connections(box, lambda c: [r] if (r := claim(c, 30)) else [], len(job_ids), log)
    if error:
        t.expect(f"claim runs from {CONNECTIONS} connections at once", ok=False, note=f"your code raised {error}")
        return
    _expect_each_job_once(t, claims, job_ids, f"{CONNECTIONS} connections each calling claim(conn, 30) until None", log)


# -- 03.claim_batch ----------------------------------------------------------------------------------


@exercise_check("03.claim_batch")
def claim_batch_check(t: Trial, claim_batch):
    box = _simple_queue(t)
    conn = box.conn
    got = t.call(claim_batch, conn, 3, 30, during="claim_batch(conn, 3, 30) on an empty jobs table")
    t.require("returns an empty list when no job is waiting", ok=got is not None and list(got) == [], got=got,
              expected=[], example="an empty jobs table")

    ids = _add_jobs(conn, [3, 5, 1, 4, 2])  # oldest first: ids[1], ids[3], ids[0], ids[4], ids[2]
    five = "five jobs made visible 3, 5, 1, 4 and 2 seconds ago"
    got = t.call(claim_batch, conn, 3, 45, during="claim_batch(conn, 3, 45) with five jobs waiting")
    t.require("returns a list of rows (id, type, payload)",
              ok=isinstance(got, (list, tuple)) and all(_looks_like_a_row(r) for r in got), got=got, example=five)
    t.expect("returns at most `limit` jobs, the oldest ones", got=sorted(_id_of(r) for r in got),
             expected=sorted([ids[1], ids[3], ids[0]]), example=f"{five}; claim_batch(conn, 3, 45)")
    leased = conn.execute("SELECT count(*) FROM jobs WHERE locked_until > now()").fetchone()[0]
    t.expect("claims no more jobs than it returns", got=f"{leased} jobs leased", expected="3 jobs leased",
             example=f"{five}; claim_batch(conn, 3, 45)",
             note="a job leased but not returned is hidden from every worker and run by none until its lease "
                  "runs out: put the LIMIT inside the statement that locks and marks" if leased > 3 else None)
    rows = conn.execute("SELECT attempts, extract(epoch FROM locked_until - now())::float8 FROM jobs "
                        "WHERE id = ANY(%s)", [[_id_of(r) for r in got]]).fetchall()
    t.expect("each claimed job: attempts = 1 and locked_until = now() + lease_s",
             ok=len(rows) == 3 and all(a == 1 and _around(s, 45) for a, s in rows),
             got=[(a, None if s is None else round(s)) for a, s in rows], expected=[(1, 45)] * 3,
             example="claim_batch(conn, 3, 45)")

    got = t.call(claim_batch, conn, 3, 45, during="a second claim_batch(conn, 3, 45)")
    t.expect("the next batch skips leased jobs: the two left", got=sorted(_id_of(r) for r in got or []),
             expected=sorted([ids[4], ids[2]]), example=f"{five}; two batches of 3")
    got = t.call(claim_batch, conn, 3, 45, during="claim_batch(conn, 3, 45) when every job is leased")
    t.expect("returns [] when every job is leased", ok=got is not None and list(got) == [], got=got, expected=[])
    due, got = _due_exactly_now(t, conn, lambda: claim_batch(conn, 3, 45),
                                "claim_batch(conn, 3, 45) in the transaction that stored a job with run_at = now()")
    t.expect("a job due exactly now (run_at = now(), the boundary) is claimed", got=[_id_of(r) for r in got or []],
             expected=[due], example=f"every other job leased; job {due} stored with run_at = now() in the claim's "
                                     "own transaction", note="due means run_at <= now(), not <" if not got else None)

    conn.execute("TRUNCATE jobs")
    held, *rest = _add_jobs(conn, [4, 3, 2, 1])
    got = _claim_while_a_row_is_locked(t, box, held, lambda: claim_batch(conn, 2, 30),
                                       during="claim_batch(conn, 2, 30) while another connection holds a row lock")
    t.expect("does not wait for a row another worker is claiming: takes the next ones",
             got=got if got == WAITED else sorted(_id_of(r) for r in got or []),
             expected=sorted(rest[:2]), example=f"another connection holds a lock on job {held} (the oldest)",
             note=f"the claim waited until lock_timeout ({LOCK_TIMEOUT}) gave up: use FOR UPDATE SKIP LOCKED"
             if got == WAITED else None)

    conn.execute("TRUNCATE jobs")
    job_ids = _add_jobs(conn, [1.0] * 300)
    log: list[tuple[str, bool]] = []
    claims, error = _claim_from_many_connections(box, lambda c: list(claim_batch(c, 7, 30) or []), len(job_ids), log)
    if error:
        t.expect(f"claim_batch runs from {CONNECTIONS} connections at once", ok=False, note=f"your code raised {error}")
        return
    _expect_each_job_once(t, claims, job_ids, f"{CONNECTIONS} connections each calling claim_batch(conn, 7, 30) until []", log)


# -- 03.quiz ----------------------------------------------------------------------------------------------


@exercise_check("03.quiz")
def quiz(t: Trial, q1, q2, q3, q4, q5):
    ask(t, "q1", q1, "b", "what SKIP LOCKED does", "what did the second connection do when the first held the row?")
    ask(t, "q2", q2, "c", "a claim with no row lock", "look again at the 'jobs claimed twice' bar of the race")
    ask(t, "q3", q3, "a", "plain FOR UPDATE with twenty workers", "which of the three waited on locks, and was it wrong "
        "or only slow?")
    ask(t, "q4", q4, "b", "a worker that crashes after its claim", "what does locked_until do once it is in the past?")
    ask(t, "q5", q5, "c", "why the reference claim moves run_at", "which rows can the claim skip by reading one "
        "index in order?")
