"""Monitoring a queue: the numbers that say it is healthy, and the alerts that say it is not.

    snapshot(conn)              one reading: per queue ready / in flight / scheduled / oldest waiting,
                                dead letters, dead tuples (course.core.queue.stats plus oldest_waiting)
    oldest_waiting(conn)        per queue, how long the oldest job someone waits for has been due
    OldestJobOver, DeadLetters, DeadTuplesOver, evaluate(snapshot, conditions)  when to alert
    duration, time_behind, render_text, render_html      the numbers in words, a table of them

Lab 11's live dashboard is course/programs/monitoring_view.py; its vacuum tools and demo,
course/programs/dead_rows.py.

Why age and not depth: a queue's depth says how much work waits, not how late it is. Little's law turns
one into the other only through the throughput: 10,000 newsletter jobs that the workers clear in two
seconds are fine; 40 receipts stuck behind a dead email provider are twelve minutes of angry customers.
The age of the oldest waiting job measures lateness directly, whatever the throughput.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import psycopg

from course.core import queue, sql
from course.errors import InvalidArgument

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


# -- alert conditions: when a person must look ------------------------------------------------------


@dataclass(frozen=True)
class Alert:
    condition: str  # the name of the condition it met, e.g. "oldest job over 2 min"
    subject: str  # what it is about: a queue's name, "dead letters", "jobs table"
    message: str  # one line for a person

    @property
    def key(self) -> tuple[str, str]:
        return (self.condition, self.subject)


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


DEFAULT_CONDITIONS = (OldestJobOver(LATE_AFTER_S), DeadLetters())


def evaluate(snap: Snapshot, conditions: Sequence = DEFAULT_CONDITIONS) -> list[Alert]:
    """Every alert the conditions raise on this snapshot, in their order."""
    return [alert for condition in conditions for alert in condition.check(snap)]


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
