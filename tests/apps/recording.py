"""Handlers for the worker tests. Each run is written down in `runs`, in the job's own schema, so a test
can see which job ran, in which process, when, and whether two runs of one job overlapped."""

import os
import time

from course.core.queue import PermanentError
from course.core.worker import Registry

handlers = Registry()

RUNS_TABLE = """
CREATE TABLE IF NOT EXISTS runs (
    job_id   bigint      NOT NULL,
    pid      int         NOT NULL,
    started  timestamptz NOT NULL,
    finished timestamptz NOT NULL DEFAULT clock_timestamp()
)"""


@handlers.handler("record")
def record(job, conn):
    started = time.time()
    time.sleep(job.payload.get("sleep_s", 0))
    conn.execute("INSERT INTO runs (job_id, pid, started) VALUES (%s, %s, to_timestamp(%s))",
                 (job.id, os.getpid(), started))


@handlers.handler("noop")
def noop(job):
    pass


@handlers.handler("always_fails")
def always_fails(job):
    raise RuntimeError("the provider answered 503")


@handlers.handler("invalid_address")
def invalid_address(job):
    raise PermanentError("550 no such mailbox: nobody@invalid")


@handlers.handler("needs_order", payload={"order_id": int})
def needs_order(job):
    pass
