"""Lab 09: StayHub's Friday newsletter next to booking confirmations, run on real workers and measured.

The material's numbers: 48,000 newsletter jobs enqueued at once, 2 workers finishing about 40 jobs/s,
so a booking confirmation enqueued right after waits 48,000 / 40 = 1,200 s. Here the same thing runs
at a smaller size: worker processes, a fixed service time per job (0.05 s, so 2 workers do ~40 jobs/s),
a few hundred newsletter jobs and then one confirmation, in three layouts:

    one queue, FIFO          everything in "default", same priority: the confirmation waits its turn
    one queue, priorities    the newsletter at priority -10: the claim (ORDER BY priority DESC) takes
                             the confirmation first
    two queues               the newsletter in "bulk", the confirmation in "urgent", one worker each

    result = run_layout("lab09", "two queues", bulk_jobs=240)
    result.confirmation_wait_s, result.bulk_throughput

Each run records, for every job a worker starts, when it was enqueued, claimed and started (the `runs`
table, in the lab's schema), and the measurements come from those rows.

IMPACT is the routing table of exercise 09.route: who waits for each job type, and how late it may be.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import psycopg

from course.infra import db
from course.programs import pools, queueing_theory
from course.core import queue
from course.errors import InvalidArgument
from course.core.worker import Registry

URGENT, BULK = "urgent", "bulk"
URGENT_WITHIN_S = 120  # StayHub alerts when the oldest job is over 2 minutes old
NEWSLETTER_PRIORITY = -10  # below the default 0: anything enqueued normally goes first
SERVICE_S = 0.05  # 2 workers x 1 job at a time / 0.05 s = 40 jobs/s, the material's rate
SERVICE_ENV = "NEWSLETTER_SERVICE_S"
APP = "course.programs.newsletter:handlers"


# -- who waits for what ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Impact:
    who_waits: str
    late_after_s: int  # how late the job may be before it hurts someone


IMPACT: dict[str, Impact] = {
    "send_confirmation_email": Impact("the guest, refreshing their inbox after paying", 60),
    "send_password_reset": Impact("a guest at the login page", 60),
    "sync_channel_manager": Impact("the hotel: until it runs, other sites can sell the same room", 120),
    "render_invoice": Impact("the guest's accountant, some day this month", 86_400),
    "send_newsletter": Impact("nobody: marketing wants it out today", 86_400),
    "rebuild_search_index": Impact("nobody, as long as it runs nightly", 21_600),
}


def describe_impact(table: dict[str, Impact] = IMPACT) -> str:
    """The routing table as aligned lines, most urgent first."""
    rows = sorted(table.items(), key=lambda item: (item[1].late_after_s, item[0]))
    return "\n".join(f"{name:<25} late after {_duration(i.late_after_s):>9}   waiting: {i.who_waits}"
                     for name, i in rows)


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 7200:
        return f"{seconds / 60:g} min"
    if seconds < 172_800:
        return f"{seconds / 3600:g} h"
    return f"{seconds / 86_400:g} days"


# -- the jobs the demo's workers run -------------------------------------------------------------------

RUNS_TABLE = """
CREATE TABLE IF NOT EXISTS runs (
    job_id      bigint      PRIMARY KEY,
    type        text        NOT NULL,
    queue       text        NOT NULL,
    enqueued_at timestamptz NOT NULL,
    claimed_at  timestamptz NOT NULL,
    claimed_by  text        NOT NULL,
    started_at  timestamptz NOT NULL
)"""

handlers = Registry()


def _run(job, conn) -> None:
    """Write down when this job was enqueued, claimed and started, then do its (fixed) work."""
    # The job's row is still in the jobs table while it runs (the ack deletes it), so its timestamps
    # come from there, all from the database's clock. ON CONFLICT: a second run changes nothing.
    conn.execute("INSERT INTO runs SELECT id, type, queue, created_at, claimed_at, claimed_by, clock_timestamp() "
                 "FROM jobs WHERE id = %s ON CONFLICT DO NOTHING", [job.id])
    time.sleep(float(os.environ.get(SERVICE_ENV, SERVICE_S)))


handlers.handler("send_newsletter", payload={"guest_id": int})(_run)
handlers.handler("send_confirmation_email", payload={"booking_id": int})(_run)


def install(conn: psycopg.Connection) -> None:
    """The queue's tables and the runs table, in the connection's schema."""
    queue.install(conn)
    conn.execute(RUNS_TABLE)


# -- the three layouts ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    name: str
    worker_queues: tuple[str, ...]  # one worker process per entry
    newsletter_queue: str
    newsletter_priority: int
    confirmation_queue: str


LAYOUTS = {
    "one queue, FIFO": Layout("one queue, FIFO", ("default", "default"), "default", 0, "default"),
    "one queue, priorities": Layout("one queue, priorities", ("default", "default"), "default",
                                    NEWSLETTER_PRIORITY, "default"),
    "two queues": Layout("two queues", (URGENT, BULK), BULK, 0, URGENT),
}


@dataclass(frozen=True)
class Measured:
    """One run of a layout: what the confirmation waited, and how fast the newsletter went meanwhile."""

    layout: str
    bulk_jobs: int
    workers: int
    confirmation_wait_s: float  # from its enqueue to a worker starting it
    newsletter_before: int  # newsletter jobs claimed before the confirmation was
    newsletter_started: int  # newsletter jobs started by the end of the run
    bulk_throughput: float  # newsletter jobs started per second, measured while it ran
    # Newsletter jobs that overtook the confirmation in its own queue: claimed by a claim that began
    # after the confirmation was committed and before the confirmation's claim began. Where the claim
    # order puts the confirmation first this is at most one per other worker (a claim that found it
    # locked by the worker taking it, and skipped it) however busy the machine is.
    newsletter_overtaking: int = 0
    # Pairs of newsletter runs by two different workers that ran at the same moment: one started while
    # the other was in its `service_s` of work (each run writes down its start, then works). Above 0 shows
    # the workers run side by side, at any speed; a rate cannot (a slow machine halves it either way).
    overlapping_runs: int = 0

    @property
    def bulk_drain_s(self) -> float:
        """How long the whole newsletter takes at the measured rate."""
        return self.bulk_jobs / self.bulk_throughput


def run_layout(schema: str, layout: str, *, bulk_jobs: int = 240, service_s: float = SERVICE_S,
               measure_bulk_s: float = 2.0, progress: Callable[[int], None] | None = None,
               timeout_s: float = 120.0) -> Measured:
    """Enqueue `bulk_jobs` newsletter jobs, then one booking confirmation, with real workers running.

    The run ends once the confirmation has started and the newsletter has run for at least
    `measure_bulk_s` seconds (or is done), so that its throughput is measured too. `progress` is
    called with the number of newsletter jobs started so far (a tqdm bar's update, in the lab).
    """
    plan = LAYOUTS.get(layout)
    if plan is None:
        raise InvalidArgument(f"layout {layout!r} is not one of {', '.join(map(repr, LAYOUTS))}.")
    with db.connect(schema) as conn:
        install(conn)
        conn.execute("TRUNCATE jobs, runs")
        pool = pools.start(APP, schema=schema, queues=plan.worker_queues, env={SERVICE_ENV: str(service_s)})
        try:
            queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in range(1, bulk_jobs + 1)],
                               queue=plan.newsletter_queue, priority=plan.newsletter_priority)
            confirmation = queue.enqueue(conn, "send_confirmation_email", {"booking_id": 981},
                                         queue=plan.confirmation_queue)
            # enqueue has returned, so the confirmation is committed: every claim that begins after
            # this moment sees it (the database's clock, as claimed_at is)
            [visible_by] = conn.execute("SELECT clock_timestamp()").fetchone()
            _watch(conn, confirmation, bulk_jobs, measure_bulk_s, progress, timeout_s)
        finally:
            pool.stop()
        return _measure(conn, layout, bulk_jobs, len(plan.worker_queues), confirmation, visible_by, service_s)


def _watch(conn, confirmation: int, bulk_jobs: int, measure_bulk_s: float,
           progress: Callable[[int], None] | None, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    reported = 0
    while time.monotonic() < deadline:
        confirmation_ran, started, span = conn.execute(
            "SELECT bool_or(job_id = %s), count(*) FILTER (WHERE type = 'send_newsletter'), "
            "coalesce(extract(epoch FROM max(started_at) FILTER (WHERE type = 'send_newsletter') "
            "                          - min(started_at) FILTER (WHERE type = 'send_newsletter')), 0)::float8 "
            "FROM runs", [confirmation]).fetchone()
        if progress and started > reported:
            progress(started - reported)
            reported = started
        if confirmation_ran and (started >= bulk_jobs or span >= measure_bulk_s):
            return
        time.sleep(0.05)
    raise TimeoutError(f"the confirmation had not run after {timeout_s:g} s (are the workers alive?)")


def _measure(conn, layout: str, bulk_jobs: int, workers: int, confirmation: int, visible_by,
             service_s: float) -> Measured:
    wait, claimed_at, its_queue = conn.execute(
        "SELECT extract(epoch FROM started_at - enqueued_at)::float8, claimed_at, queue FROM runs "
        "WHERE job_id = %s", [confirmation]).fetchone()
    before, started, first, last = conn.execute(
        "SELECT count(*) FILTER (WHERE claimed_at < %s), count(*), "
        "       extract(epoch FROM min(started_at))::float8, extract(epoch FROM max(started_at))::float8 "
        "FROM runs WHERE type = 'send_newsletter'", [claimed_at]).fetchone()
    [overtaking] = conn.execute(
        "SELECT count(*) FROM runs WHERE type = 'send_newsletter' AND queue = %s "
        "AND claimed_at > %s AND claimed_at < %s", [its_queue, visible_by, claimed_at]).fetchone()
    [overlapping] = conn.execute(
        "SELECT count(*) FROM runs a JOIN runs b ON b.claimed_by <> a.claimed_by "
        "AND b.started_at >= a.started_at AND b.started_at < a.started_at + make_interval(secs => %s) "
        "WHERE a.type = 'send_newsletter' AND b.type = 'send_newsletter'", [service_s]).fetchone()
    # n jobs started over the span from the first start to the last: n - 1 gaps between starts
    throughput = (started - 1) / (last - first) if started > 1 and last > first else float("nan")
    return Measured(layout, bulk_jobs, workers, wait, before, started, throughput, overtaking, overlapping)


# -- reading the results ---------------------------------------------------------------------------------


def predicted(bulk_jobs: int, throughput: float, workers: int = 2) -> dict[str, queueing_theory.Layout]:
    """What the arithmetic of course.programs.queueing_theory says for the same three layouts, by name."""
    return {layout.name: layout for layout in queueing_theory.compare_layouts(bulk_jobs, throughput, workers)}


def plot_waits(results: list[Measured], ax=None):
    """The confirmation's wait in each layout, measured next to predicted (log scale: 5 ms to minutes)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.2))
    fifo = next(r for r in results if r.layout == "one queue, FIFO")
    expected = predicted(fifo.bulk_jobs, fifo.bulk_throughput, fifo.workers)
    names = [r.layout for r in results]
    floor = 0.005  # a wait of 0 cannot sit on a log scale; 5 ms is "at once" at this resolution
    measured = [max(r.confirmation_wait_s, floor) for r in results]
    guess = [max(expected[r.layout].urgent_wait, floor) for r in results]
    rows = range(len(results))
    ax.barh([y + 0.2 for y in rows], measured, height=0.4, label="measured", color="tab:blue")
    ax.barh([y - 0.2 for y in rows], guess, height=0.4, label="predicted (compare_layouts; 0 s drawn at 5 ms)", color="tab:gray")
    ax.set_yticks(list(rows), names)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("seconds the confirmation waited before a worker started it (log scale)")
    ax.set_title(f"A booking confirmation behind {fifo.bulk_jobs} newsletter jobs, {fifo.workers} workers")
    ax.legend(loc="lower right", fontsize="small")
    return ax
