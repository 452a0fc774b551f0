"""StayHub's two recurring jobs, lab 08's examples: invoice the stays that ended the night before (every
night at 02:00, each missed night caught up), and release the unpaid holds that lapsed (every 5 minutes,
missed runs skipped). course.core.scheduler enqueues them; a worker runs them with `handlers`.

    install(conn, night)        the stays, their invoices and a log of every run (task_runs), around `night`
    handlers                    nightly_invoices, release_unpaid_holds: python -m course worker
                                --app course.programs.stayhub_recurring:handlers

Their SQL is course/programs/sql/stayhub_recurring.sql.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import psycopg

from course.programs import sql
from course.core.worker import Registry


handlers = Registry()  # python -m course worker --app course.programs.stayhub_recurring:handlers


def install(conn: psycopg.Connection, night: date) -> None:
    """The tables StayHub's two recurring jobs work on (stays, stay_invoices, task_runs), with stays
    around `night`: paid stays ending that day (three) and on each of the next three days (one each),
    and unpaid holds that lapse at 01:57 and 02:03 the next morning, 02:04 the morning after, and 09:00
    the day after that."""
    with conn.transaction():
        conn.execute(sql.query("stayhub_recurring", "install"))
        conn.execute(sql.query("stayhub_recurring", "seed"), {"night": night})


@handlers.handler("nightly_invoices", payload={"slot": str})
def nightly_invoices(job, conn) -> None:
    """Invoice the stays that ended the day before the slot: the 02:00 run on the 14th does the 13th."""
    slot = datetime.fromisoformat(job.payload["slot"])
    night = (slot.astimezone(UTC) - timedelta(days=1)).date()
    with conn.transaction():
        made = conn.execute(sql.query("stayhub_recurring", "make_invoices"), {"night": night}).rowcount
        _log_run(conn, job, slot, made)


@handlers.handler("release_unpaid_holds", payload={"slot": str})
def release_unpaid_holds(job, conn) -> None:
    """Release the holds that lapsed by the slot's time."""
    slot = datetime.fromisoformat(job.payload["slot"])
    with conn.transaction():
        released = conn.execute(sql.query("stayhub_recurring", "release_holds"), {"slot": slot}).rowcount
        _log_run(conn, job, slot, released)


def _log_run(conn: psycopg.Connection, job, slot: datetime, changed: int) -> None:
    conn.execute(sql.query("stayhub_recurring", "log_task_run"),
                 {"task": job.type, "slot": slot, "job_id": job.id, "changed": changed})
