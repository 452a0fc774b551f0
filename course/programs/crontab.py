"""Lab 08's foil: recurring jobs the way a crontab on every app server runs them.

Each process remembers by itself when it last looked and enqueues every slot that has passed since,
knowing nothing of the others (three servers, three jobs a slot) nor of the time it was not running
(those slots are lost: no row anywhere says they were due). course.core.scheduler is the fix: one
decision a slot, shared by every scheduler, recorded in `schedule_runs`.

    enqueue_since(conn, now, since)     what one crontab does at `now`: every slot in (since, now], enqueued
    remembering_tick()                  a tick function with a crontab's memory: this process's last look
    start(schema, count)                `count` such processes on the lab's simulated clock, one per server
    python -m course.programs.crontab --name cron-1 --clock simulated --schema lab08

The processes are course.core.scheduler's own loop (run) with this tick: heartbeats, the clock and the
clean stop are the same, only the decision differs.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import psycopg

from course.core import queue, scheduler
from course.infra import processes

MODE = "cron"  # what its heartbeat says it does


def enqueue_since(conn: psycopg.Connection, now: datetime, since: datetime) -> list[int]:
    """What one crontab does: enqueue every slot in (since, now], remembering nothing in the database.

    Three servers doing this enqueue every slot three times; a slot that passed while this process was
    not running is never enqueued at all.
    """
    enqueued = []
    for schedule in scheduler.schedules(conn):
        for slot in scheduler.slots_between(schedule, since, now):
            enqueued.append(queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot),
                                          queue=schedule.queue))
    return enqueued


def remembering_tick() -> Callable[[psycopg.Connection, datetime], list[int]]:
    """A tick for scheduler.run that keeps a crontab's memory: the time this process last looked. Its
    first tick enqueues nothing: a crontab starting up runs nothing for the past."""
    since: datetime | None = None

    def tick(conn: psycopg.Connection, now: datetime) -> list[int]:
        nonlocal since
        enqueued = enqueue_since(conn, now, since or now)
        since = now
        return enqueued

    return tick


def start(schema: str, count: int, *, prefix: str = "cron", timeout: float = 30.0) -> list[processes.Child]:
    """`count` crontab processes on the simulated clock, as on `count` app servers; returns once each has
    ticked the clock. Stop them with scheduler.stop(...)."""
    return scheduler.start(schema, count, prefix=prefix, timeout=timeout, program=__name__)


def main(argv: list[str] | None = None) -> int:
    return scheduler.main(argv, prog="python -m course.programs.crontab", tick_fn=remembering_tick(), mode=MODE,
                          description="Enqueue recurring jobs as a crontab on every server does (lab 08's foil).")


if __name__ == "__main__":
    raise SystemExit(main())
