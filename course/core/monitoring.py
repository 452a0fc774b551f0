"""Watching a queue: the numbers that say it is healthy, the alerts that say it is not, a live dashboard,
and the PostgreSQL-specific trouble (dead row versions that vacuum may not remove).

    snapshot(conn)              one reading: per queue ready / in flight / scheduled / oldest waiting,
                                dead letters, dead tuples (course.core.queue.stats plus oldest_waiting)
    oldest_waiting(conn)        per queue, how long the oldest job someone waits for has been due
    OldestJobOver, DeadLetters, DeadTuplesOver, evaluate(snapshot, rules)      alert rules
    Dashboard(conninfo)         a live ipywidgets view of snapshots and alerts, refreshed by a thread
    plot_history(history)       depth and lateness over time, one line per queue
    claim_cost(conn)            how many pages the claim's search reads now, and how long it takes
    vacuum_blockers(conn)       sessions whose open transaction keeps VACUUM from cleaning up
    SnapshotHolder, vacuum()    hold a snapshot open on purpose; run VACUUM VERBOSE and read its verdict
    Churn                       jobs flowing through real workers, sampled: the vacuum demo of lab 11

Why age and not depth: a queue's depth says how much work waits, not how late it is. Little's law turns
one into the other only through the throughput: 10,000 newsletter jobs that the workers clear in two
seconds are fine; 40 receipts stuck behind a dead email provider are twelve minutes of angry customers.
The age of the oldest waiting job measures lateness directly, whatever the throughput.
"""

from __future__ import annotations

import html
import re
import statistics
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import psycopg

from course.core import queue, sql
from course.errors import InvalidArgument
from course.core.worker import Registry

LATE_AFTER_S = 120.0  # StayHub's rule: alert when the oldest job is over 2 minutes old
DEAD_TUPLES_LIMIT = 100_000


# -- one reading -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class QueueView:
    """One queue's line on the dashboard."""

    queue: str
    ready: int  # visible now: waiting, or left behind by a worker whose lease ran out
    in_flight: int  # claimed, lease running
    scheduled: int  # waiting for their run_at: a retry's backoff, or a job delayed on purpose
    waiting_s: float  # how long the oldest job someone is waiting for has existed (0: nobody waits)

    @property
    def depth(self) -> int:
        return self.ready + self.in_flight + self.scheduled


@dataclass(frozen=True)
class Snapshot:
    at: float  # seconds since the watching began (0 for a one-off reading)
    queues: tuple[QueueView, ...] = ()
    dead_letters: int = 0
    dead_tuples: int = 0

    def queue(self, name: str) -> QueueView:
        for view in self.queues:
            if view.queue == name:
                return view
        return QueueView(name, 0, 0, 0, 0.0)

    @property
    def depth(self) -> int:
        return sum(view.depth for view in self.queues)


def oldest_waiting(conn: psycopg.Connection) -> dict[str, float]:
    """queue -> seconds since the oldest job someone is waiting for became due (queues with none left out).

    Counts jobs that are due, running, or waiting for a retry; not jobs scheduled for later that never ran.
    Counted from due_at (when the job was first due), not created_at: a job enqueued with a delay is not
    late for the time it was meant to wait.
    """
    return {name: seconds for name, seconds in conn.execute(sql.query("monitoring", "oldest_waiting"))}


def snapshot(conn: psycopg.Connection, at: float = 0.0, *, queues: Iterable[str] = ()) -> Snapshot:
    """One reading of the queue tables in the connection's schema.

    `queues` are shown even when empty (a dashboard whose rows come and go is hard to read).
    """
    idle = conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    with conn.transaction():
        if idle:  # one view of the table for every number (READ COMMITTED would take one per statement)
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        stats = queue.stats(conn)
        waiting = oldest_waiting(conn)
    names = sorted({q.queue for q in stats.queues} | set(waiting) | set(queues))
    views = []
    for name in names:
        row = stats.queue(name)
        views.append(QueueView(name, row.ready, row.in_flight, row.scheduled, round(waiting.get(name, 0.0), 3)))
    return Snapshot(round(at, 3), tuple(views), stats.dead_letters, stats.dead_tuples)


# -- alert rules -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Alert:
    rule: str  # the rule's name, e.g. "oldest job over 2 min"
    subject: str  # what it is about: a queue's name, "dead letters", "jobs table"
    message: str  # one line for a person

    @property
    def key(self) -> tuple[str, str]:
        return (self.rule, self.subject)


@dataclass(frozen=True)
class OldestJobOver:
    """Someone has waited too long: the oldest waiting job of a queue is older than `limit_s`."""

    limit_s: float = LATE_AFTER_S

    def __post_init__(self):
        if not isinstance(self.limit_s, (int, float)) or isinstance(self.limit_s, bool) or self.limit_s <= 0:
            raise InvalidArgument(f"limit_s is in seconds and must be more than 0; got {self.limit_s!r}.")

    @property
    def name(self) -> str:
        return f"oldest job over {duration(self.limit_s)}"

    def check(self, snap: Snapshot) -> list[Alert]:
        return [Alert(self.name, view.queue, f"{view.queue}: the oldest job has waited {duration(view.waiting_s)} "
                                             f"(limit {duration(self.limit_s)})")
                for view in snap.queues if view.waiting_s > self.limit_s]


@dataclass(frozen=True)
class DeadLetters:
    """Anything in the dead-letter table: a job gave up, and a person has to look at it."""

    name: str = "anything in the dead-letter table"

    def check(self, snap: Snapshot) -> list[Alert]:
        if snap.dead_letters <= 0:
            return []
        jobs = "job" if snap.dead_letters == 1 else "jobs"
        return [Alert(self.name, "dead letters", f"{snap.dead_letters} {jobs} in the dead-letter table")]


@dataclass(frozen=True)
class DeadTuplesOver:
    """The jobs table carries more dead row versions than `limit`: is something holding back vacuum?"""

    limit: int = DEAD_TUPLES_LIMIT

    @property
    def name(self) -> str:
        return f"dead tuples over {self.limit:,}"

    def check(self, snap: Snapshot) -> list[Alert]:
        if snap.dead_tuples <= self.limit:
            return []
        return [Alert(self.name, "jobs table", f"the jobs table has {snap.dead_tuples:,} dead row versions "
                                               f"(limit {self.limit:,}): look for a long transaction")]


DEFAULT_RULES = (OldestJobOver(LATE_AFTER_S), DeadLetters())


def evaluate(snap: Snapshot, rules: Sequence = DEFAULT_RULES) -> list[Alert]:
    """Every alert the rules raise on this snapshot, in rule order."""
    return [alert for rule in rules for alert in rule.check(snap)]


# -- words and numbers -------------------------------------------------------------------------------


def duration(seconds: float) -> str:
    """'0.4 s', '12 s', '2 min', '12 min 30 s', '1 h 5 min'."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        minutes, rest = divmod(whole, 60)
        return f"{minutes} min" + (f" {rest} s" if rest else "")
    hours, rest = divmod(whole, 3600)
    return f"{hours} h" + (f" {rest // 60} min" if rest // 60 else "")


def time_behind(depth: int, workers: int, seconds_per_job: float) -> float:
    """Little's law at work: how long the last of `depth` queued jobs waits when `workers` jobs run at once
    and each takes `seconds_per_job` (throughput = workers / seconds_per_job)."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise InvalidArgument(f"depth must be a whole number, 0 or more; got {depth!r}.")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidArgument(f"workers must be a whole number, 1 or more; got {workers!r}.")
    if not isinstance(seconds_per_job, (int, float)) or isinstance(seconds_per_job, bool) or seconds_per_job <= 0:
        raise InvalidArgument(f"seconds_per_job must be more than 0; got {seconds_per_job!r}.")
    return depth * seconds_per_job / workers


def render_text(snap: Snapshot, alerts: Sequence[Alert] = ()) -> str:
    """The dashboard as plain text (what a notebook run under nbval, or a log line, can show)."""
    lines = [f"{'queue':<12} {'ready':>7} {'in flight':>9} {'scheduled':>9}  oldest waiting"]
    for view in snap.queues:
        lines.append(f"{view.queue:<12} {view.ready:>7,} {view.in_flight:>9,} {view.scheduled:>9,}  "
                     f"{duration(view.waiting_s)}")
    if not snap.queues:
        lines.append("(no jobs)")
    lines.append(f"dead letters: {snap.dead_letters:,}    dead tuples in the jobs table: {snap.dead_tuples:,}")
    lines.append("alerts: " + ("none" if not alerts else ""))
    lines.extend(f"  ! {alert.message}" for alert in alerts)
    return "\n".join(lines)


def render_html(snap: Snapshot, alerts: Sequence[Alert] = (), *, late_after_s: float = LATE_AFTER_S,
                title: str = "") -> str:
    """The dashboard as an HTML table: one row per queue, a bar for lateness against the limit, alerts."""
    late_subjects = {alert.subject for alert in alerts}
    rows = []
    for view in snap.queues:
        share = min(1.0, view.waiting_s / late_after_s) if late_after_s else 0.0
        colour = "#c0392b" if view.queue in late_subjects else "#2e86c1"
        bar = (f"<div style='background:#eee;width:140px;height:10px;display:inline-block'>"
               f"<div style='background:{colour};width:{share * 140:.0f}px;height:10px'></div></div>")
        rows.append(f"<tr><td>{html.escape(view.queue)}</td><td style='text-align:right'>{view.ready:,}</td>"
                    f"<td style='text-align:right'>{view.in_flight:,}</td>"
                    f"<td style='text-align:right'>{view.scheduled:,}</td>"
                    f"<td>{bar} {duration(view.waiting_s)}</td></tr>")
    if not rows:
        rows.append("<tr><td colspan='5'>(no jobs)</td></tr>")
    alert_lines = "".join(f"<li style='color:#c0392b'>{html.escape(a.message)}</li>" for a in alerts)
    alert_block = f"<ul style='margin:2px 0'>{alert_lines}</ul>" if alerts else \
        "<div style='color:#1e8449'>no alerts</div>"
    heading = f"<b>{html.escape(title)}</b> " if title else ""
    return (f"<div style='font-family:monospace;font-size:13px'>{heading}<span style='color:#888'>"
            f"t = {snap.at:.1f} s</span>"
            "<table><tr><th>queue</th><th>ready</th><th>in flight</th><th>scheduled</th>"
            f"<th>oldest waiting (limit {duration(late_after_s)})</th></tr>{''.join(rows)}</table>"
            f"dead letters: <b>{snap.dead_letters:,}</b> &nbsp; dead tuples: <b>{snap.dead_tuples:,}</b>"
            f"{alert_block}</div>")


# -- the live dashboard ------------------------------------------------------------------------------


class Dashboard:
    """A live view of a schema's queues: a thread takes a snapshot every `every_s` seconds, evaluates the
    rules and redraws an ipywidgets panel, until stop() (or its Stop button).

        board = Dashboard(db.conninfo("lab11"), rules=[OldestJobOver(120), DeadLetters()])
        board.start()          # shows the panel and starts refreshing; the notebook goes on meanwhile
        ...
        board.stop()
        board.history, board.fired, print(board.text())
    """

    def __init__(self, conninfo: str, rules: Sequence = DEFAULT_RULES, *, every_s: float = 0.5,
                 queues: Iterable[str] = (), title: str = "queue dashboard"):
        if not isinstance(every_s, (int, float)) or isinstance(every_s, bool) or every_s <= 0:
            raise InvalidArgument(f"every_s is in seconds and must be more than 0; got {every_s!r}.")
        self.conninfo = conninfo
        self.rules = tuple(rules)
        self.every_s = float(every_s)
        self.queues = tuple(queues)
        self.title = title
        self.history: list[Snapshot] = []
        self.alerts: list[Alert] = []  # the ones firing at the last refresh
        self.fired: dict[tuple[str, str], tuple[float, Alert]] = {}  # every alert seen: first time, alert
        self._conn: psycopg.Connection | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started_at = time.monotonic()
        self._widget = None
        self._panel = None
        self.error: str | None = None

    @property
    def late_after_s(self) -> float:
        limits = [rule.limit_s for rule in self.rules if isinstance(rule, OldestJobOver)]
        return min(limits) if limits else LATE_AFTER_S

    # -- the tested part: one refresh ------------------------------------------------------------

    def refresh(self) -> Snapshot:
        """Take one snapshot, evaluate the rules, remember both, redraw the panel if shown."""
        with self._lock:
            if self._conn is None or self._conn.closed or self._conn.broken:
                self._conn = psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5)
            snap = snapshot(self._conn, time.monotonic() - self._started_at, queues=self.queues)
            alerts = evaluate(snap, self.rules)
            self.history.append(snap)
            self.alerts = alerts
            for alert in alerts:
                self.fired.setdefault(alert.key, (snap.at, alert))
        if self._panel is not None:
            self._panel.value = render_html(snap, alerts, late_after_s=self.late_after_s, title=self.title)
        return snap

    @property
    def latest(self) -> Snapshot | None:
        return self.history[-1] if self.history else None

    def text(self) -> str:
        """The latest state as text."""
        if self.latest is None:
            return "(no snapshot yet)"
        return render_text(self.latest, self.alerts)

    def fired_summary(self) -> list[str]:
        """Every alert that fired while watching, first firing first: 'at 3.5 s: <message>'."""
        return [f"at {at:.1f} s: {alert.message}" for at, alert in sorted(self.fired.values(), key=lambda x: x[0])]

    # -- the widget and the thread -----------------------------------------------------------------

    def widget(self):
        """The ipywidgets panel (an HTML view and a Stop button), built on first use."""
        if self._widget is None:
            import ipywidgets as widgets

            self._panel = widgets.HTML(value=f"<i>{html.escape(self.title)}: waiting for the first snapshot</i>")
            button = widgets.Button(description="Stop")
            button.on_click(lambda _: self.stop())
            self._widget = widgets.VBox([self._panel, button])
        return self._widget

    def start(self, *, show: bool = True) -> None:
        """Show the panel (in a notebook) and refresh it every `every_s` seconds in a background thread."""
        if self._thread is not None and self._thread.is_alive():
            return
        if show:
            from IPython.display import display

            display(self.widget())
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="dashboard", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.refresh()
                self.error = None
            except psycopg.Error as error:  # the database went away for a moment: say so, keep trying
                self.error = f"{type(error).__name__}: {error}"
                if self._panel is not None:
                    self._panel.value = f"<span style='color:#c0392b'>cannot read the queue: {html.escape(self.error)}</span>"
            self._stop.wait(self.every_s)

    def stop(self) -> None:
        """Stop refreshing (the panel keeps its last state) and close the connection."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()


def plot_history(history: Sequence[Snapshot], *, late_after_s: float | None = None, title: str = ""):
    """Two panels over time, one line per queue: depth (log scale) and how long the oldest job has waited."""
    import matplotlib.pyplot as plt

    names = sorted({view.queue for snap in history for view in snap.queues})
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.6))
    for name in names:
        times = [snap.at for snap in history]
        left.plot(times, [max(snap.queue(name).depth, 0.8) for snap in history], label=name)
        right.plot(times, [snap.queue(name).waiting_s for snap in history], label=name)
    left.set_yscale("log")
    left.set_xlabel("seconds")
    left.set_ylabel("jobs queued (depth, log scale)")
    left.set_title("How much waits")
    right.set_xlabel("seconds")
    right.set_ylabel("oldest job has waited (s)")
    right.set_title("How late it is")
    if late_after_s is not None:
        right.axhline(late_after_s, color="#c0392b", linestyle="--", linewidth=1, label="alert limit")
    for axes in (left, right):
        axes.legend(loc="best", fontsize=8)
        axes.grid(alpha=0.3)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


# -- helpers for demos ---------------------------------------------------------------------------------


class Every:
    """Call `action()` every `interval_s` seconds in a background thread until stop(); count the calls.

    An exception in `action` stops the loop and is kept in `.error` (and raised again by stop()).
    """

    def __init__(self, interval_s: float, action: Callable[[], object], *, name: str = "every"):
        self.interval_s = interval_s
        self.action = action
        self.calls = 0
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            try:
                self.action()
            except BaseException as error:  # noqa: BLE001 (kept and raised by stop())
                self.error = error
                return
            self.calls += 1
            next_at += self.interval_s
            self._stop.wait(max(0.0, next_at - time.monotonic()))

    def stop(self) -> int:
        self._stop.set()
        self._thread.join(timeout=10)
        if self.error is not None:
            raise self.error
        return self.calls


demo_handlers = Registry()  # what the lab's demo workers run: --app course.core.monitoring:demo_handlers


@demo_handlers.handler("send_newsletter")
def send_newsletter(job) -> None:
    """A newsletter to a test list: nothing is sent; what the demo watches is how fast the queue drains."""


@demo_handlers.handler("churn")
def churn(job) -> None:
    """A job that does nothing: the vacuum demo only needs rows to be claimed and deleted, fast."""


# -- PostgreSQL's own trouble: dead row versions -------------------------------------------------------


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
    (course.core.worker, with demo_handlers' no-op `churn` job) claim and delete them. Every `sample_every_s`
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
        self.workers = [worker.spawn("course.core.monitoring:demo_handlers", schema=self.schema, dsn=self.dsn,
                                     concurrency=self.concurrency, lease=10, name=f"churn-worker{n}")
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
