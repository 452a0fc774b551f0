"""Lab 11's (and 12's) live dashboard: snapshots and alerts (course.core.monitoring) redrawn in a
notebook while the queue runs, and drawn afterwards over time.

    Dashboard(conninfo)         a live ipywidgets view of snapshots and alerts, refreshed by a thread
    plot_history(history)       depth and lateness over time, one line per queue
    Every(interval_s, action)   call something every few seconds in a thread (a demo's steady producer)
    demo_handlers               what the lab's newsletter workers run: --app course.programs.monitoring_view:demo_handlers
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable, Iterable, Sequence

import psycopg

from course.core.monitoring import (
    DEFAULT_CONDITIONS, LATE_AFTER_S, Alert, OldestJobOver, Snapshot, evaluate, render_html, render_text, snapshot)
from course.errors import InvalidArgument
from course.core.worker import Registry



class Dashboard:
    """A live view of a schema's queues: a thread takes a snapshot every `every_s` seconds, evaluates the
    conditions and redraws an ipywidgets panel, until stop() (or its Stop button).

        board = Dashboard(db.conninfo("lab11"), conditions=[OldestJobOver(120), DeadLetters()])
        board.start()          # shows the panel and starts refreshing; the notebook goes on meanwhile
        ...
        board.stop()
        board.history, board.fired, print(board.text())
    """

    def __init__(self, conninfo: str, conditions: Sequence = DEFAULT_CONDITIONS, *, every_s: float = 0.5,
                 queues: Iterable[str] = (), title: str = "queue dashboard"):
        if not isinstance(every_s, (int, float)) or isinstance(every_s, bool) or every_s <= 0:
            raise InvalidArgument(f"every_s is in seconds and must be more than 0; got {every_s!r}.")
        self.conninfo = conninfo
        self.conditions = tuple(conditions)
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
        limits = [condition.limit_s for condition in self.conditions if isinstance(condition, OldestJobOver)]
        return min(limits) if limits else LATE_AFTER_S

    # -- the tested part: one refresh ------------------------------------------------------------

    def refresh(self) -> Snapshot:
        """Take one snapshot, evaluate the conditions, remember both, redraw the panel if shown."""
        with self._lock:
            if self._conn is None or self._conn.closed or self._conn.broken:
                self._conn = psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5)
            snap = snapshot(self._conn, time.monotonic() - self._started_at, queues=self.queues)
            alerts = evaluate(snap, self.conditions)
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


demo_handlers = Registry()  # what the lab's demo workers run: --app course.programs.monitoring_view:demo_handlers


@demo_handlers.handler("send_newsletter")
def send_newsletter(job) -> None:
    """A newsletter to a test list: nothing is sent; what the demo watches is how fast the queue drains."""
