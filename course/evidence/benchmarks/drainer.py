"""A process that drains the jobs table in a tight loop: the benchmark's stand-in for a worker.

    python -m course.evidence.benchmarks.drainer

The benchmark starts a few of these once and reuses them, so starting Python is never timed. It talks
to each over stdin/stdout, one line of JSON at a time:

    parent -> {"conninfo": ..., "loop": "reference", "batch": 100}    connect, then answer {"ready": true}
    parent -> "go"                                                     drain, then answer
    drainer -> {"jobs": 4180, "finished": 12345.678}                  time.monotonic(): one clock machine-wide

The loops, from the least to the most machinery:
    lock        one transaction per claim: SELECT ... FOR UPDATE SKIP LOCKED, DELETE, COMMIT. The row lock
                is the lease, so a crash releases it at once, but the transaction stays open while the job
                runs (the textbook loop; fine for milliseconds, not for a 3-second PDF).
    bare        the reference queue's own claim and ack statements, sent with plain psycopg: two commits
                per claim (claim, then ack), the lease in the row.
    reference   the same statements through course.core.queue (validation, Job objects): what it adds is
                the difference between this line and `bare`.
    step        course.core.queue's ack_and_claim, a worker's step: the ack of one batch and the claim of
                the next in one statement, one commit per batch (the lease path at its fewest commits).
    for-update  `bare` with plain FOR UPDATE instead of FOR UPDATE SKIP LOCKED: claims queue up behind
                each other's row locks (lab 03's contrast).
"""

from __future__ import annotations

import json
import sys
import time

import psycopg

from course.core import queue, sql
from course.evidence.benchmarks.statements import Acks, claim_params, claim_sql
from course.programs import sql as lab_sql

# The textbook loop's statements: the claim's search alone (it holds the row lock instead of writing a
# lease) and a delete, as lab 11 measures them.
LOCK_CLAIM = sql.query("monitoring", "claim_search")
LOCK_DELETE = lab_sql.query("write_amplification", "lock_delete")
LEASE_S = 60.0  # longer than any drain: a lease never runs out during a measurement


def anything_visible(conn: psycopg.Connection) -> bool:
    """An empty claim is not proof of an empty queue: under plain FOR UPDATE a claim that waited for a
    row another process then took returns nothing, though more rows wait behind it."""
    return conn.execute("SELECT EXISTS (SELECT FROM jobs WHERE run_at <= now())").fetchone()[0]


def lock_loop(conn: psycopg.Connection, batch: int) -> int:
    done = 0
    while True:
        with conn.transaction():
            ids = [row[0] for row in conn.execute(LOCK_CLAIM, {"queue": queue.DEFAULT_QUEUE, "limit": batch})]
            if ids:
                conn.execute(LOCK_DELETE, {"ids": ids})
        done += len(ids)
        if not ids and not anything_visible(conn):
            return done


def statement_loop(skip_locked: bool):
    """The reference claim and ack, as queue.sql has them (see statements.py), with nothing around them."""
    claim = claim_sql(skip_locked)

    def loop(conn: psycopg.Connection, batch: int) -> int:
        params = claim_params(claim, limit=batch, lease_s=LEASE_S)
        acks = None  # read off the claim's columns at its first answer
        done = 0
        while True:
            cursor = conn.execute(claim, params)
            rows = cursor.fetchall()
            if acks is None:
                acks = Acks.for_claim([column.name for column in cursor.description])
            acks.send(conn, rows)
            done += len(rows)
            if not rows and not anything_visible(conn):
                return done
    return loop


def reference_loop(conn: psycopg.Connection, batch: int) -> int:
    done = 0
    while True:
        jobs = queue.claim(conn, limit=batch, lease_s=LEASE_S)
        if len(jobs) == 1:
            queue.ack(conn, jobs[0])
        elif jobs:
            queue.ack_many(conn, jobs)
        done += len(jobs)
        if not jobs and not anything_visible(conn):
            return done


def step_loop(conn: psycopg.Connection, batch: int) -> int:
    done, jobs = 0, []
    while True:
        if jobs:
            _, jobs = queue.ack_and_claim(conn, jobs, limit=batch, lease_s=LEASE_S)
        else:
            jobs = queue.claim(conn, limit=batch, lease_s=LEASE_S)
        done += len(jobs)
        if not jobs and not anything_visible(conn):
            return done


LOOPS = {
    "lock": lock_loop,
    "bare": statement_loop(skip_locked=True),
    "reference": reference_loop,
    "step": step_loop,
    "for-update": statement_loop(skip_locked=False),
}


def answer(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    conn = None
    try:
        for line in sys.stdin:  # one measurement per line, until the parent closes our stdin
            if conn is not None:
                # Closed only now: while the parent reads the server's CPU time after a drain, the
                # backend that did the drain's work is still running and counted.
                conn.close()
            order = json.loads(line)
            # Every statement prepared at its first run (not its sixth), and this backend's caches warm:
            # the clock starts with every loop at full speed.
            conn = psycopg.connect(order["conninfo"], autocommit=True, prepare_threshold=0)
            loop = LOOPS[order["loop"]]
            anything_visible(conn)
            answer({"ready": True})
            if sys.stdin.readline().strip() != "go":
                return
            jobs = loop(conn, order["batch"])
            answer({"jobs": jobs, "finished": time.monotonic()})
    finally:
        if conn is not None:
            conn.close()


if __name__ == "__main__":
    main()
