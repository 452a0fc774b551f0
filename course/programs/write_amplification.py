"""Lab 11's write amplification: what one job writes to the write-ahead log, claimed three ways.

    measure(conninfo, design)       drain jobs one way; what the WAL got, per job and by kind of record
    claim_pages(conninfo, design)   pages one claim's search reads with jobs in flight ahead of it
    plot_writes(results)            bytes per job, stacked by kind of record

The designs (DESIGNS), from the least written to the most:
    row lock          SELECT ... FOR UPDATE SKIP LOCKED, work, DELETE, COMMIT: the lock is the lease
    lease, unindexed  a lease whose end is a column no index holds, so the claim can be a HOT update
    lease             the reference queue: queue.claim then queue.ack_many (the claim moves run_at)

Each runs on a fresh jobs table in a schema of its own, with autovacuum off for that table (it would
write too), after a CHECKPOINT, so that every design starts from the same state. The WAL between the
first claim and the last ack is read back with pg_walinspect: counts and bytes are the server's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import psycopg
from psycopg import sql as pgsql

from course.core import queue, sql
from course.programs import sql as lab_sql
from course.errors import InvalidArgument

BATCH = 100  # jobs per claim, as the benchmark's batched rows
LEASE_S = 300.0  # longer than any measurement: no lease runs out


def _row_lock(conn: psycopg.Connection) -> int:
    with conn.transaction():
        ids = [row[0] for row in conn.execute(sql.query("monitoring", "claim_search"),
                                              {"queue": queue.DEFAULT_QUEUE, "limit": BATCH})]
        if ids:
            conn.execute(lab_sql.query("write_amplification", "lock_delete"), {"ids": ids})
    return len(ids)


def _lease(conn: psycopg.Connection) -> int:
    jobs = queue.claim(conn, limit=BATCH, lease_s=LEASE_S)
    if jobs:
        queue.ack_many(conn, jobs)
    return len(jobs)


def _lease_unindexed(conn: psycopg.Connection) -> int:
    params = {"queue": queue.DEFAULT_QUEUE, "limit": BATCH, "lease_s": LEASE_S, "worker": None}
    claimed = conn.execute(lab_sql.query("write_amplification", "hot_claim"), params).fetchall()
    if claimed:  # the ack is the reference's: it reads only id and lease_token
        conn.execute(sql.query("queue", "ack_many"), {"ids": [job_id for job_id, _ in claimed],
                                                      "lease_tokens": [token for _, token in claimed]})
    return len(claimed)


@dataclass(frozen=True)
class Design:
    name: str
    one_batch: Callable[[psycopg.Connection], int]  # claim and finish one batch; how many jobs it took
    unindexed_deadline: bool = False


DESIGNS = {d.name: d for d in (Design("row lock", _row_lock),
                               Design("lease, unindexed", _lease_unindexed, unindexed_deadline=True),
                               Design("lease", _lease))}


@dataclass(frozen=True)
class Writes:
    design: str
    fillfactor: int
    jobs: int
    records: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind -> (count, bytes)
    page_image_bytes: int = 0
    updates: int = 0
    hot_updates: int = 0

    @property
    def label(self) -> str:
        return self.design + ("" if self.fillfactor == 100 else f", fillfactor {self.fillfactor}")

    @property
    def bytes_per_job(self) -> float:
        """WAL bytes per job, full-page images left out (they depend on when checkpoints fall)."""
        return sum(size for _, size in self.records.values()) / self.jobs

    def per_job(self, record: str) -> tuple[float, float]:
        """(records, bytes) of one kind, per job."""
        count, size = self.records.get(record, (0, 0))
        return count / self.jobs, size / self.jobs

    @property
    def hot_share(self) -> float:
        return self.hot_updates / self.updates if self.updates else 0.0


def fresh_table(conninfo: str, schema: str, design: Design, fillfactor: int) -> psycopg.Connection:
    """A new, empty jobs table in `schema` (dropped first), set up for `design`; a connection to it."""
    with psycopg.connect(conninfo, autocommit=True) as admin:
        admin.execute(pgsql.SQL("DROP SCHEMA IF EXISTS {s} CASCADE; CREATE SCHEMA {s}").format(
            s=pgsql.Identifier(schema)))
        admin.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
    conn = psycopg.connect(conninfo, autocommit=True, options=f"-c search_path={schema},public")
    queue.install(conn)
    if design.unindexed_deadline:
        conn.execute(lab_sql.query("write_amplification", "unindexed_deadline"))
    conn.execute(pgsql.SQL("ALTER TABLE jobs SET (fillfactor = {}, autovacuum_enabled = false)").format(
        pgsql.Literal(fillfactor)))
    return conn


def fill(conn: psycopg.Connection, jobs: int) -> None:
    with conn.transaction():
        with conn.cursor().copy("COPY jobs (type) FROM STDIN") as copy:
            for _ in range(jobs):
                copy.write_row(("noop",))
        conn.execute("ANALYZE jobs")


def measure(conninfo: str, design: str, *, schema: str = "write_amplification", jobs: int = 2000,
            fillfactor: int = 100) -> Writes:
    """Store `jobs` no-op jobs, drain them the way `design` claims, and read back what the WAL got."""
    chosen = _design(design)
    if not 10 <= fillfactor <= 100:
        raise InvalidArgument(f"fillfactor is a percentage from 10 to 100; got {fillfactor!r}.")
    with fresh_table(conninfo, schema, chosen, fillfactor) as conn:
        fill(conn, jobs)
        conn.execute("CHECKPOINT")  # every design starts with its pages written out, the same way
        start = conn.execute("SELECT pg_current_wal_insert_lsn()").fetchone()[0]
        done = 0
        while taken := chosen.one_batch(conn):
            done += taken
        end = conn.execute("SELECT pg_current_wal_insert_lsn()").fetchone()[0]
        if done != jobs:
            raise RuntimeError(f"{design}: drained {done} of {jobs} jobs")
        rows = conn.execute(lab_sql.query("write_amplification", "wal_by_record"), {"start": start, "end": end}).fetchall()
        conn.execute("SELECT pg_stat_force_next_flush()")
        updates, hot = conn.execute(lab_sql.query("write_amplification", "updates")).fetchone()
    return Writes(design, fillfactor, jobs, {record: (count, size) for record, count, size, _ in rows},
                  sum(images for *_, images in rows), updates, hot)


def claim_pages(conninfo: str, design: str, *, in_flight: int = 1000, waiting: int = 1000,
                schema: str = "write_amplification") -> int:
    """Pages one claim's search reads when `in_flight` jobs are leased (running) ahead of `waiting` ones.

    A design that keeps the lease's end out of the index reads past every running job to skip it."""
    chosen = _design(design)
    if chosen.name == "row lock":
        raise InvalidArgument("the row-lock design has no jobs in flight that a claim could see: its running "
                              "jobs are locked, and SKIP LOCKED passes over them in the index. Pass 'lease' or "
                              "'lease, unindexed'.")
    with fresh_table(conninfo, schema, chosen, 100) as conn:
        fill(conn, in_flight + waiting)
        for _ in range(in_flight // BATCH):
            _claim_only(conn, chosen)
        search = (lab_sql.query("write_amplification", "hot_claim_search") if chosen.unindexed_deadline
                  else sql.query("monitoring", "claim_search"))
        with conn.transaction(force_rollback=True):
            plan = conn.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + search,
                                {"queue": queue.DEFAULT_QUEUE, "limit": BATCH}).fetchone()[0][0]["Plan"]
    return int(plan.get("Shared Hit Blocks", 0)) + int(plan.get("Shared Read Blocks", 0))


def _claim_only(conn: psycopg.Connection, design: Design) -> None:
    """Claim one batch and leave it running (leased, not acked)."""
    if design.unindexed_deadline:
        conn.execute(lab_sql.query("write_amplification", "hot_claim"),
                     {"queue": queue.DEFAULT_QUEUE, "limit": BATCH, "lease_s": LEASE_S, "worker": None})
    else:
        queue.claim(conn, limit=BATCH, lease_s=LEASE_S)


def _design(name: str) -> Design:
    if name not in DESIGNS:
        raise InvalidArgument(f"design is one of {', '.join(map(repr, DESIGNS))}; got {name!r}.")
    return DESIGNS[name]


def plot_writes(results: list[Writes], *, title: str = "WAL written per job, by kind of record"):
    """A horizontal bar per measurement, its bytes per job stacked by kind of record (the five biggest
    kinds named, the rest together)."""
    import matplotlib.pyplot as plt

    kinds: dict[str, float] = {}
    for r in results:
        for record, (_, size) in r.records.items():
            kinds[record] = kinds.get(record, 0) + size / r.jobs
    named = sorted(kinds, key=kinds.get, reverse=True)[:5]
    fig, ax = plt.subplots(figsize=(9, 0.6 + 0.5 * len(results)))
    labels = [r.label for r in results]
    left = [0.0] * len(results)
    for kind in named + ["other"]:
        widths = [(r.per_job(kind)[1] if kind != "other"
                   else sum(size for record, (_, size) in r.records.items() if record not in named) / r.jobs)
                  for r in results]
        ax.barh(labels, widths, left=left, label=kind)
        left = [a + b for a, b in zip(left, widths)]
    ax.invert_yaxis()
    ax.set_xlabel("bytes of WAL per job (full-page images left out)")
    ax.set_title(title)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig
