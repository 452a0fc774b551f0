"""13.keep_alive's renderer, as the check puts it into the consumer processes: it logs every page.

The learner's handler calls `render_page(booking_id, page)`. What it was called with cannot be seen from
outside the handler, and behind the class grader's boundary the handler runs in sandboxed processes
whose module the check cannot patch. So the check ships the handler to its consumer processes inside
`with_renderer(handler, renderer)`: unpickled there, it is the handler (sync or async, as it was), whose
`render_page` is now a `Renderer`, the course's code, and which notes the task's delivery number for it.
Each call appends one line to a history the check keeps (eventlog.Kept: each consumer process writes into
a pipe of its own, and the check alone writes the file, each line stamped with the consumer's name and
the pid it started):

    {"kind": "drawn",  "booking_id": 4711, "page": 0, "delivery": 1, "began": ...}   it took PAGE_S from began
    {"kind": "failed", "booking_id": 4711, "page": 2, "delivery": 1}   the page the check chose: it raised, once

The check reads the history after the run and compares it, booking by booking and delivery by delivery,
with the reference's on the same invoices (reference_log). A page drawn in a thread of the handler's own
is the running delivery's of its booking in that process (a thread pool does not carry the context over);
one drawn when none of its booking runs there has no delivery (None): it is no delivery's page.

"Once" is a ticket, not a look at the history (which no consumer can read): a pipe that holds one byte,
its other end closed, passed to every consumer process; the first draw of the chosen page takes the byte
(a read is whole: two processes never both get it) and raises, every later one finds the pipe empty.

What a learner's process can still forge: its own lines (the handler runs in the consumer process, which
can write into its pipe what it likes, never as the other consumer), and the ticket (taking the byte
itself only spares the chosen page its fault, which the comparison with the reference then shows). It
cannot reach the file: in class grading it lives in the checker's log folder, which no sandbox can read.

It lives here, beside killpoint.py, and not with the checks: the consumer processes import it, and a
notebook's sandbox may not read course/grading/checks.
"""

from __future__ import annotations

import contextvars
import inspect
import os
import time
import types
from dataclasses import dataclass

from course.infra import eventlog

PAGE_S = 0.4  # the notebook's render_page


_delivery: contextvars.ContextVar[int | None] = contextvars.ContextVar("delivery", default=None)
# The deliveries running in this process, by booking: a page drawn in a thread the handler started (a
# thread pool does not carry the context over) is the running delivery's of its booking (round f5, c05)
_running: dict[object, int] = {}


def _delivery_of(booking_id) -> int | None:
    delivery = _delivery.get()
    if delivery is None:
        try:
            delivery = _running.get(booking_id)
        except TypeError:  # a booking id that cannot be a key
            return None
    return delivery


def _booking(task):
    data = getattr(task, "data", None)
    return data.get("booking_id") if isinstance(data, dict) else None


class _Running:
    """While a delivery runs: its booking's pages drawn in other threads are counted as its own."""

    def __init__(self, task):
        self.booking, self.delivery = _booking(task), getattr(task, "deliveries", None)

    def __enter__(self):
        try:
            _running[self.booking] = self.delivery
        except TypeError:
            pass
        return self

    def __exit__(self, *exc):
        try:
            if _running.get(self.booking) == self.delivery:
                del _running[self.booking]
        except TypeError:
            pass


class PageFailed(RuntimeError):
    """The page the check chose to fail, on its first call."""


@dataclass(frozen=True)
class Page(eventlog.Event):
    booking_id: int
    page: object  # what the handler passed, as JSON kept it
    delivery: int | None  # the task's: 1 on the first delivery
    began: float | None = None  # when the page began (its line's t: when it ended)


@dataclass(frozen=True)
class Renderer:
    """render_page(booking_id, page): PAGE_S of work, logged; `fail` = (booking_id, page) raises, once (the
    first draw that takes `ticket`'s byte: pass the descriptor to every process the renderer goes to, and
    close() it once they are started); the pages of booking `quick` take no time (an invoice of hundreds of
    pages, drawn in an instant)."""
    log: str
    fail: tuple[int, int] | None = None
    page_s: float = PAGE_S
    quick: int | None = None
    ticket: int | None = None

    def __post_init__(self):
        if self.fail is not None and self.ticket is None:
            object.__setattr__(self, "ticket", one_ticket())

    def __call__(self, booking_id, page) -> None:
        if self.fail is not None and (booking_id, page) == self.fail and self._first_time():
            eventlog.record(self.log, kind="failed", booking_id=booking_id, page=page, delivery=_delivery_of(booking_id))
            raise PageFailed(f"page {page} of booking {booking_id} could not be drawn (the check's fault)")
        began = time.time()
        time.sleep(0 if booking_id == self.quick else self.page_s)
        eventlog.record(self.log, kind="drawn", booking_id=_plain(booking_id), page=_plain(page),
                        delivery=_delivery_of(booking_id), began=began)

    @property
    def fds(self) -> list[int]:
        """What a process the renderer goes to must be passed (processes.python's pass_fds)."""
        return [] if self.ticket is None else [self.ticket]

    def close(self) -> None:
        """Let go of the ticket here (once: its number may be another file's afterwards)."""
        if self.ticket is not None:
            os.close(self.ticket)
            object.__setattr__(self, "ticket", None)

    def _first_time(self) -> bool:
        try:
            return os.read(self.ticket, 1) == b"!"  # b"" once taken: its write end is closed
        except (OSError, TypeError):
            return False  # no ticket in this process: never the first


def one_ticket() -> int:
    """A pipe holding one byte, its write end closed: its read end. Whoever reads first takes the byte."""
    read_end, write_end = os.pipe()
    os.write(write_end, b"!")
    os.close(write_end)
    return read_end


def _plain(value):
    """A value the JSON line can hold (a handler may pass anything)."""
    return value if isinstance(value, (int, float, str, type(None))) else repr(value)


def read(log: str) -> list[Page]:
    return eventlog.read(log, lambda **fields: Page(**{k: fields.get(k) for k in
                                                      ("t", "pid", "kind", "booking_id", "page", "delivery", "began")}))


def calls(log: str) -> dict[object, dict[int | None, list[tuple[object, str]]]]:
    """Booking by booking, delivery by delivery, the pages asked for, in order: [(page, "drawn" | "failed")]."""
    by_booking: dict[object, dict[int | None, list[tuple[object, str]]]] = {}
    for p in read(log):
        by_booking.setdefault(p.booking_id, {}).setdefault(p.delivery, []).append((p.page, p.kind))
    return by_booking


RENDERER = "__course_page_renderer__"  # where a rerouted render_page finds the renderer: in its own globals


def _to_the_renderer(*args, **kwargs):
    """The code a rerouted render_page runs: the renderer, a global of the function it now belongs to."""
    return __course_page_renderer__(*args, **kwargs)  # noqa: F821 (set by reroute in that function's globals)


def reroute(function, renderer: Renderer) -> None:
    """Make the notebook's render_page function itself call the renderer, so that every way an answer reaches
    it draws through the renderer: by its name at call time, an alias bound once (`draw = render_page`,
    `from ... import render_page as draw`), a default argument, a closure. The function object is the same
    one all of them hold (one pickle keeps one copy of it); only its code changes, in this process."""
    if not isinstance(function, types.FunctionType) or function.__code__.co_freevars:
        return  # not a plain function: only the name can be rebound (install does that too)
    function.__globals__[RENDERER] = renderer
    function.__code__ = _to_the_renderer.__code__.replace(co_name=function.__code__.co_name)
    function.__defaults__, function.__kwdefaults__ = None, None


def install(handler, renderer: Renderer, notebooks=None):
    """In the consumer process: the handler, its `render_page` now the renderer (its globals are this
    process's own copy, shared by the notebook functions pickled with it), the notebook's render_page
    function (`notebooks`, pickled with the handler: the very object its aliases hold) rerouted to it,
    each task's delivery noted."""
    scope = getattr(handler, "__globals__", None)
    if isinstance(scope, dict):
        reroute(notebooks if notebooks is not None else scope.get("render_page"), renderer)
        scope["render_page"] = renderer
    if inspect.iscoroutinefunction(handler):
        async def delivered(task):
            token = _delivery.set(task.deliveries)
            try:
                with _Running(task):
                    return await handler(task)
            finally:
                _delivery.reset(token)
    else:
        def delivered(task):
            token = _delivery.set(task.deliveries)
            try:
                with _Running(task):
                    return handler(task)
            finally:
                _delivery.reset(token)
    return delivered


class with_renderer:
    """Pickled for a consumer process, it unpickles as install(handler, renderer)."""

    def __init__(self, handler, renderer: Renderer):
        self.handler, self.renderer = handler, renderer
        # The notebook's render_page, however the answer holds it (a plain function's globals only: nothing is
        # asked of any other handler here)
        self.notebooks = handler.__globals__.get("render_page") if isinstance(handler, types.FunctionType) else None

    def __call__(self, task):  # never called here: jetstream_run only checks that a handler is callable
        raise RuntimeError("with_renderer runs in the consumer process it is pickled for")

    def __reduce__(self):
        return install, (self.handler, self.renderer, self.notebooks)


def run_redelivering(handler, renderer: Renderer, data: dict, max_deliver: int) -> None:
    """The consumer loop's contract, in this process: deliver until the handler returns (what raises is
    delivered again), at most max_deliver times; the handler's `render_page` is the renderer."""
    copy = types.FunctionType(handler.__code__, {**handler.__globals__, "render_page": renderer},
                              handler.__name__, handler.__defaults__, handler.__closure__)

    class Task:
        def __init__(self, deliveries: int):
            self.data, self.deliveries = dict(data), deliveries

        def in_progress(self):
            pass

    run = install(copy, renderer)
    for delivery in range(1, max_deliver + 1):
        try:
            run(Task(delivery))
            return
        except PageFailed:
            continue
