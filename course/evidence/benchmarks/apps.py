"""Handlers for the benchmark's reference workers (`--app course.evidence.benchmarks.apps:handlers`)."""

import time

from course.core.worker import Registry

handlers = Registry()

LATENCY_TABLE = """
CREATE TABLE IF NOT EXISTS started (
    job_id     bigint PRIMARY KEY,
    latency_s  float8 NOT NULL
)"""


@handlers.handler("noop")
def noop(job):
    """Does nothing: what is left to measure is the queue itself."""


@handlers.handler("stamp", payload={"sent": float})
def stamp(job, conn):
    """Write down how long after its producer called enqueue() this job started (one clock: same machine)."""
    latency = time.time() - job.payload["sent"]
    conn.execute("INSERT INTO started (job_id, latency_s) VALUES (%s, %s)", (job.id, latency))
