"""Lab 11's PostgreSQL-specific trouble: dead row versions that VACUUM may not remove, the tools that
show them, and a demo that makes them.

    claim_cost(conn)            how many pages the claim's search reads now, and how long it takes
    jobs_table_tuples(conn)     live and dead row versions in the jobs table
    vacuum_blockers(conn)       sessions whose open transaction keeps VACUUM from cleaning up
    SnapshotHolder, vacuum()    hold a snapshot open on purpose; run VACUUM VERBOSE and read its verdict
    Churn                       jobs flowing through real workers, sampled: the vacuum demo
    summarize, plot_churn       the demo's samples, phase by phase and drawn
"""

from __future__ import annotations

import re
import statistics
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import psycopg

from course.core import queue, sql
from course.errors import InvalidArgument
from course.core.worker import Registry



churn_handlers = Registry()  # what the demo's workers run: --app course.programs.dead_rows:churn_handlers


@churn_handlers.handler("churn")
def churn_job(job) -> None:
    """A job that does nothing: the vacuum demo only needs rows to be claimed and deleted, fast."""


@dataclass(frozen=True)
class ClaimCost:
    pages: int  # shared buffers the claim's search touched (hit or read): how much of the table it walked
    ms: float  # its execution time, measured by the server (not the network, not our process)


def claim_cost(conn: psycopg.Connection, queue_name: str = queue.DEFAULT_QUEUE, *, limit: int = 10) -> ClaimCost:
    """Run the claim's search under EXPLAIN (ANALYZE, BUFFERS) and roll it back: nothing is claimed."""
    statement = "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql.query("monitoring", "claim_search")
    try:
        with conn.transaction(force_rollback=True):
            plan = conn.execute(statement, {"queue": queue_name, "limit": limit}).fetchone()[0][0]
    except psycopg.errors.LockNotAvailable:  # pragma: no cover (SKIP LOCKED never waits)
        raise
    top = plan["Plan"]
    pages = int(top.get("Shared Hit Blocks", 0)) + int(top.get("Shared Read Blocks", 0))
    return ClaimCost(pages, round(float(plan["Execution Time"]), 3))


def jobs_table_tuples(conn: psycopg.Connection) -> tuple[int, int]:
    """(dead, live) row versions of the jobs table, as the statistics last reported them."""
    conn.execute("SELECT pg_stat_force_next_flush()")  # our own backend's counts, at least, are current
    row = conn.execute(sql.query("monitoring", "jobs_table_tuples")).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


@dataclass(frozen=True)
class Blocker:
    pid: int
    state: str | None  # 'idle in transaction', 'active', ...
    transaction_age_s: float
    query: str  # the last statement it ran (still running, if 'active')


def vacuum_blockers(conn: psycopg.Connection, older_than_s: float = 60.0) -> list[Blocker]:
    """Sessions of this database whose transaction is older than `older_than_s` and keeps row versions
    alive for VACUUM (a snapshot, or a transaction id of their own), oldest first."""
    if not isinstance(older_than_s, (int, float)) or isinstance(older_than_s, bool) or older_than_s < 0:
        raise InvalidArgument(f"older_than_s is in seconds, 0 or more; got {older_than_s!r}.")
    rows = conn.execute(sql.query("monitoring", "vacuum_blockers"), {"older_than_s": float(older_than_s)})
    return [Blocker(pid, state, round(age, 3), query) for pid, state, age, query in rows]


class SnapshotHolder:
    """A session that opens a REPEATABLE READ transaction, reads one row and then does nothing: what a
    forgotten psql session, a long report or a stuck migration does to a busy table.

        with SnapshotHolder(conninfo) as holder:     # holder.pid is the session to look for
            ...                                      # VACUUM cannot remove what died after this point
    """

    def __init__(self, conninfo: str):
        self.conninfo = conninfo
        self.conn: psycopg.Connection | None = None
        self.pid: int | None = None

    def open(self) -> "SnapshotHolder":
        self.conn = psycopg.connect(self.conninfo, autocommit=False, application_name="forgotten-report",
                                    connect_timeout=5)
        self.conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        self.pid = self.conn.execute("SELECT pg_backend_pid()").fetchone()[0]  # the snapshot starts here
        return self

    def release(self) -> None:
        if self.conn is not None and not self.conn.closed:
            self.conn.rollback()
            self.conn.close()

    def __enter__(self) -> "SnapshotHolder":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.release()


@dataclass(frozen=True)
class VacuumResult:
    removed: int  # dead row versions removed
    remain: int  # row versions left in the table
    not_yet_removable: int  # dead, but some open transaction might still need them
    verbose: str  # PostgreSQL's own report, for the curious


_TUPLES = re.compile(r"tuples: (\d+) removed, (\d+) remain, (\d+) are dead but not yet removable")


def vacuum(conn: psycopg.Connection, table: str = "jobs") -> VacuumResult:
    """VACUUM (VERBOSE) one table of the connection's schema; what it removed and what it had to keep."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", table):
        raise InvalidArgument(f"table must be a plain lower-case name like 'jobs'; got {table!r}.")
    notes: list[str] = []

    def keep(diagnostic) -> None:
        notes.append(diagnostic.message_primary or "")

    conn.add_notice_handler(keep)
    try:
        conn.execute(f"VACUUM (VERBOSE) {table}")
    finally:
        conn.remove_notice_handler(keep)
    report = next((n for n in notes if n.startswith("finished vacuuming") and _TUPLES.search(n)), "")
    match = _TUPLES.search(report)
    if not match:  # pragma: no cover (a PostgreSQL whose wording changed)
        return VacuumResult(0, 0, 0, "\n".join(notes))
    removed, remain, kept = (int(g) for g in match.groups())
    return VacuumResult(removed, remain, kept, report)


@dataclass(frozen=True)
class ChurnSample:
    at: float  # seconds since the churn started
    phase: str  # what the demo was doing: "normal", "snapshot held", "after VACUUM"
    dead_tuples: int
    claim_pages: int
    claim_ms: float
    depth: int
    done: int  # jobs finished so far (enqueued minus still queued)


class Churn:
    """Jobs flowing through real worker processes, and a sampler watching the jobs table while they do.

    A producer thread enqueues `rate_per_s` jobs a second in small batches; `workers` worker processes
    (course.core.worker, with churn_handlers' no-op `churn` job) claim and delete them. Every `sample_every_s`
    seconds the sampler records the dead tuples, what a claim's search costs (claim_cost) and the depth,
    tagged with the current `phase` (set it to mark what you are doing). Meant for a server of its own
    (lab 11 uses course.infra.private_server.PrivateServer): holding a snapshot on a shared server would
    hold back vacuum for everyone using it.
    """

    def __init__(self, conninfo: str, schema: str, *, rate_per_s: int = 2000, workers: int = 2,
                 concurrency: int = 8, sample_every_s: float = 0.5, dsn: str | None = None):
        self.conninfo = conninfo  # a connection string for `schema` (search_path set)
        self.schema = schema
        self.dsn = dsn  # the server's connection string without a schema, for the workers
        self.rate_per_s = rate_per_s
        self.worker_count = workers
        self.concurrency = concurrency
        self.sample_every_s = sample_every_s
        self.phase = "normal"
        self.samples: list[ChurnSample] = []
        self.enqueued = 0
        self.workers: list = []
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._started_at = 0.0

    def start(self) -> "Churn":
        from course.core import worker

        with psycopg.connect(self.conninfo, autocommit=True) as conn:
            queue.install(conn)
            # As eager as autovacuum gets for this one table: any 1,000 dead row versions are worth a pass.
            conn.execute("ALTER TABLE jobs SET (autovacuum_vacuum_scale_factor = 0, "
                         "autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_cost_delay = 0)")
        self.workers = [worker.spawn("course.programs.dead_rows:churn_handlers", schema=self.schema, dsn=self.dsn,
                                     concurrency=self.concurrency, lease_s=10, name=f"churn-worker{n}")
                        for n in range(self.worker_count)]
        self._started_at = time.monotonic()
        for target, name in ((self._produce, "churn-producer"), (self._sample, "churn-sampler")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def _produce(self) -> None:
        batch = max(1, self.rate_per_s // 20)
        with psycopg.connect(self.conninfo, autocommit=True) as conn:
            next_at = time.monotonic()
            while not self._stop.is_set():
                queue.enqueue_many(conn, "churn", [{}] * batch, notify=False)
                self.enqueued += batch
                next_at += batch / self.rate_per_s
                self._stop.wait(max(0.0, next_at - time.monotonic()))

    def _sample(self) -> None:
        with psycopg.connect(self.conninfo, autocommit=True) as conn:
            while not self._stop.is_set():
                started = time.monotonic()
                dead, _ = jobs_table_tuples(conn)
                costs = [claim_cost(conn) for _ in range(3)]
                cost = sorted(costs, key=lambda c: c.ms)[1]  # the median of three
                depth = conn.execute("SELECT count(*) FROM jobs").fetchone()[0]
                self.samples.append(ChurnSample(round(started - self._started_at, 2), self.phase, dead,
                                                cost.pages, cost.ms, depth, self.enqueued - depth))
                self._stop.wait(max(0.0, self.sample_every_s - (time.monotonic() - started)))

    def wait(self, seconds: float, progress=None) -> None:
        """Let it run for `seconds` (calling progress(1) every second, e.g. a tqdm bar's update)."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            time.sleep(min(1.0, left))
            if progress is not None:
                progress(1)

    def stop(self) -> None:
        """Stop producing and sampling; stop the workers (SIGTERM, then SIGKILL if they hang)."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=10)
        for child in self.workers:
            if child.alive():
                child.terminate(timeout=10)

    def phase_samples(self, phase: str) -> list[ChurnSample]:
        return [s for s in self.samples if s.phase == phase]


@dataclass(frozen=True)
class PhaseSummary:
    phase: str
    samples: int
    dead_tuples_median: float
    dead_tuples_max: int
    claim_pages_median: float
    claim_pages_max: int
    claim_ms_median: float
    claim_ms_max: float


def summarize(samples: Sequence[ChurnSample]) -> list[PhaseSummary]:
    """Per phase, in the order the phases came: dead tuples, and what a claim cost (median and worst)."""
    order: list[str] = []
    for sample in samples:
        if sample.phase not in order:
            order.append(sample.phase)
    out = []
    for phase in order:
        rows = [s for s in samples if s.phase == phase]
        out.append(PhaseSummary(
            phase, len(rows),
            statistics.median(s.dead_tuples for s in rows), max(s.dead_tuples for s in rows),
            statistics.median(s.claim_pages for s in rows), max(s.claim_pages for s in rows),
            round(statistics.median(s.claim_ms for s in rows), 3), round(max(s.claim_ms for s in rows), 3)))
    return out


def plot_churn(samples: Sequence[ChurnSample], title: str = "A long transaction and a busy jobs table"):
    """Dead tuples and the claim's cost over time; the phases shaded."""
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 5.5), sharex=True)
    times = [s.at for s in samples]
    top.plot(times, [s.dead_tuples for s in samples], color="#7d3c98")
    top.set_ylabel("dead tuples in jobs")
    bottom.plot(times, [s.claim_pages for s in samples], color="#2e86c1", label="pages read per claim")
    bottom.set_ylabel("pages read per claim")
    right = bottom.twinx()
    right.plot(times, [s.claim_ms for s in samples], color="#ca6f1e", alpha=0.6, label="claim time (ms)")
    right.set_ylabel("claim time, server side (ms)")
    bottom.set_xlabel("seconds")
    shades = {"snapshot held": "#f5b7b1", "after VACUUM": "#abebc6"}
    for phase, colour in shades.items():
        inside = [s.at for s in samples if s.phase == phase]
        if inside:
            for axes in (top, bottom):
                axes.axvspan(min(inside), max(inside), color=colour, alpha=0.35, lw=0)
            top.text(min(inside), top.get_ylim()[1] * 0.92, f" {phase}", fontsize=9, va="top")
    lines = bottom.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    bottom.legend(lines, [line.get_label() for line in lines], loc="upper left", fontsize=8)
    top.set_title(title)
    for axes in (top, bottom):
        axes.grid(alpha=0.3)
    fig.tight_layout()
    return fig
