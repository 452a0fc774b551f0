"""The caller around a learner's call: every way a caller may hold its transaction, for a differential check
whose statement says "use the connection you are given" (00.first_job, 02.place_order).

    CALLERS                       the ways, in the learner's words, plainest first
    run_as(conn, caller, work)    work() inside that caller's transaction; the caller's own failure, or None

A caller in autocommit, one inside `with conn.transaction():` that commits or is rolled back, and one with
autocommit off, its transaction begun, that ends with conn.commit() or conn.rollback(): an answer that commits, rolls back,
changes autocommit or opens a connection of its own behaves like the reference under some of these and
not under others, so a check draws all of them. The caller's own statements should go through a plain
cursor, `psycopg.Cursor(conn)`, which a pause before each statement (interleave.statements) does not count.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import psycopg
from psycopg.pq import TransactionStatus

CALLERS = {
    "autocommit": "on a connection in autocommit, as in the notebook",
    "commits": "inside `with conn.transaction():`, which commits",
    "rolls back": "inside `with conn.transaction():`, which is rolled back",
    "commit()": "with autocommit off, then conn.commit()",
    "rollback()": "with autocommit off, then conn.rollback()",
}
ROLLED_BACK = ("rolls back", "rollback()")


def run_as(conn: psycopg.Connection, caller: str, work: Callable[[], None]) -> str | None:
    """Run work() (the call, and whatever the caller reads around it) as `caller` holds its transaction, on
    `conn` (in autocommit before and after). Returns the caller's own failure in one line — its COMMIT
    refused, or a statement of its own failing after what the answer did to the transaction — or None."""
    try:
        if caller in ("autocommit", "commits", "rolls back"):
            with conn.transaction() if caller != "autocommit" else contextlib.nullcontext():
                work()
                if caller == "rolls back":
                    raise psycopg.Rollback
        else:  # its transaction already open, as a request's is by the time it calls (psycopg begins one
            conn.autocommit = False  # at the first statement)
            psycopg.Cursor(conn).execute("SELECT 1")
            work()
            if caller == "commit()":
                conn.commit()
            else:
                conn.rollback()
    except psycopg.Error as error:
        text = str(error).strip()
        return f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"
    finally:
        tidy(conn)
    return None


def tidy(conn: psycopg.Connection) -> None:
    """Back to autocommit with no transaction open, whatever the answer left (a transaction nobody commits
    is rolled back: the caller never knew it was there)."""
    if conn.info.transaction_status != TransactionStatus.IDLE:
        conn.rollback()
    if not conn.autocommit:
        conn.autocommit = True
