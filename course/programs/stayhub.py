"""StayHub, the hotel-booking site of the capstone: its tables, its checkout (inline, or with jobs) and
its three side jobs, run by real worker processes. Its booking API, the web app a guest's checkout goes
through, is course/programs/booking_api.py; the channel-manager partner it syncs with,
course/programs/channel_manager.py.

    install(conn)                      the queue's and StayHub's tables (course/programs/sql/stayhub.sql), demo data
    charge, insert_booking             what the guest must wait for: ~300 ms + ~100 ms
    handlers                           send_confirmation_email, render_invoice, sync_channel_manager
    checkout_inline, checkout_with_jobs    the checkout with everything in the request, or with jobs
    push_to_channel_manager(url, b)    the sync, from StayHub's side (the partner: channel_manager.py)
    spawn_worker(...)                  a worker process running `handlers`, with the material's retry
                                       policy (its waits optionally scaled down, so a demo takes seconds)

The material's step times (Episode 21): payment and insert 400 ms (the payment alone 300 ms), email
300 ms (the provider's latency), invoice PDF 1,500 ms, channel-manager sync ~3.6 s: 5.8 s inline.

    python -m course.programs.stayhub worker --schema lab12      (EMAIL_PROVIDER_URL, CHANNEL_MANAGER_URL set)

Why one module: it is one system, lab 12's StayHub: its tables, its checkout and its handlers read and
write each other's rows, and a learner reads them as one site.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import secrets
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timezone
from functools import partial
from types import SimpleNamespace

import psycopg
from psycopg.rows import dict_row

from course.infra import db, processes
from course.core import queue
from course.programs import sql
from course.core.backoff import backoff_delay
from course.errors import CourseError, InvalidArgument
from course.core import arguments
from course.core.queue import PermanentError
from course.core.operations import reference_operations
from course.core.worker import Registry
from course.programs.email_provider import send_email
from course.programs.http import ServiceUnreachable, call

# -- the scenario's numbers ----------------------------------------------------------------------------

PAYMENT_S = 0.3  # authorising the card ("payment is still 300 ms of the 400")
INSERT_S = 0.1  # the availability check and the booking row
EMAIL_S = 0.3  # the email provider's latency (start it with EmailProvider.start(latency_s=EMAIL_S))
INVOICE_S = 1.5  # rendering the invoice PDF
CHANNEL_S = 3.6  # the channel manager's answer, when it answers
CHANNEL_TIMEOUT_S = 5.0  # how long StayHub waits for it
CHANNEL_TIMEOUT_RATE = 0.3  # "often timing out"
LEASE_S = 60.0  # the material's 60-second lock
MAX_ATTEMPTS = 8
WORKERS = 2
CHECK_IN = date(2026, 10, 23)  # every demo booking is for the same Friday
INVOICE_DATE = datetime(2026, 10, 19, 9, 30, tzinfo=timezone.utc)  # Monday, 9:30

SIDE_JOBS = ("send_confirmation_email", "render_invoice", "sync_channel_manager")

PROVIDER_URL_ENV = "EMAIL_PROVIDER_URL"  # the same variable Tiffin's workers read
CHANNEL_MANAGER_URL_ENV = "CHANNEL_MANAGER_URL"
INVOICE_S_ENV = "STAYHUB_INVOICE_S"  # checks render faster; the lab keeps the material's 1.5 s


def invoice_seconds() -> float:
    text = os.environ.get(INVOICE_S_ENV)
    if text is None:
        return INVOICE_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 600:
        raise InvalidArgument(f"{INVOICE_S_ENV}={text!r}: give seconds from 0 to 600, e.g. 1.5.")
    return seconds


# -- the tables ----------------------------------------------------------------------------------------


def install(conn: psycopg.Connection) -> None:
    """The queue's tables, StayHub's tables and the demo hotels, rooms and guests (guest 4's address is
    one the provider refuses). Safe to run twice."""
    queue.install(conn)
    with conn.transaction():
        conn.execute(sql.query("stayhub", "schema"))
        conn.execute(sql.query("stayhub", "seed"))


# -- what the guest waits for: ~400 ms -------------------------------------------------------------------


@dataclass(frozen=True)
class Payment:
    ref: str  # the card authorisation
    total_cents: int


def charge(conn: psycopg.Connection, guest_id: int, room_id: int, nights: int) -> Payment:
    """Price the stay and authorise the guest's card: ~300 ms at the payment provider (simulated here).

    Call it before the booking's transaction: a transaction left open while another company's server
    thinks holds its locks and its connection for nothing."""
    arguments.whole("guest_id", guest_id)
    arguments.whole("nights", nights)
    started = time.monotonic()
    row = conn.execute(sql.query("stayhub", "room_price"), {"room_id": arguments.whole("room_id", room_id)}).fetchone()
    if row is None:
        raise InvalidArgument(f"there is no room {room_id}; the rooms are 1, 2 and 3. Nothing was charged.")
    nightly_cents, schema = row
    payment = Payment(f"auth_{secrets.token_hex(5)}", nightly_cents * nights)
    with db.connect(schema) as provider:  # the provider's own record, whatever the caller's transaction does
        provider.execute(sql.query("stayhub", "record_authorisation"), {
            "ref": payment.ref, "guest_id": guest_id, "room_id": room_id, "nights": nights,
            "total_cents": payment.total_cents, "caller": conn.info.backend_pid})
    time.sleep(max(0.0, PAYMENT_S - (time.monotonic() - started)))
    return payment


def authorisations(conn: psycopg.Connection) -> list[dict]:
    """The payment provider's record of the cards it authorised, oldest first (see charge)."""
    with conn.cursor(row_factory=dict_row) as cursor:
        return cursor.execute("SELECT payment_ref, guest_id, room_id, nights, total_cents, caller_state "
                              "FROM card_authorisations ORDER BY at, payment_ref").fetchall()


def insert_booking(conn: psycopg.Connection, guest_id: int, room_id: int, nights: int, payment: Payment,
                   *, check_in: date = CHECK_IN) -> int:
    """Store the booking (~100 ms: the availability check and the insert); return its id.

    Runs in the connection's transaction, if one is open: jobs enqueued in that same transaction are
    stored with the booking, or not at all."""
    if not isinstance(payment, Payment):
        raise InvalidArgument(f"payment must be what stayhub.charge(...) returned; got {payment!r:.60}.")
    try:
        return conn.execute(sql.query("stayhub", "insert_booking"), {
            "guest_id": arguments.whole("guest_id", guest_id), "room_id": arguments.whole("room_id", room_id),
            "nights": arguments.whole("nights", nights), "check_in": check_in, "total_cents": payment.total_cents,
            "payment_ref": payment.ref, "insert_s": INSERT_S}).fetchone()[0]
    except psycopg.errors.ForeignKeyViolation:
        raise InvalidArgument(f"there is no guest {guest_id} or no room {room_id}; nothing was stored.") from None


# -- a booking, as a job reads it ------------------------------------------------------------------------


@dataclass(frozen=True)
class Booking:
    id: int
    status: str  # confirmed or cancelled
    check_in: date
    nights: int
    total_cents: int
    payment_ref: str
    guest_name: str
    guest_email: str
    hotel: str
    city: str
    room: str
    nightly_cents: int
    room_id: int
    hotel_id: int


def booking(conn: psycopg.Connection, booking_id: int) -> Booking | None:
    """The booking with its guest, room and hotel, as they are now; None if there is no such booking."""
    with conn.cursor(row_factory=dict_row) as cursor:
        row = cursor.execute(sql.query("stayhub", "booking"), {"booking_id": booking_id}).fetchone()
    if row is None:
        return None
    row.pop("created_at")
    return Booking(**row)


def cancel(conn: psycopg.Connection, booking_id: int) -> bool:
    return conn.execute(sql.query("stayhub", "cancel_booking"), {"booking_id": booking_id}).fetchone() is not None


# -- the confirmation email --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Email:
    to: str
    subject: str
    body: str


SUBJECT = "Your StayHub booking #{booking_id} is confirmed"
BOOKING_IN_SUBJECT = re.compile(r"StayHub booking #(\d+) is confirmed")


def confirmation_key(booking_id: int) -> str:
    """The confirmation's duplicate protection: the confirmations row's key, and the Idempotency-Key."""
    return f"confirm:{booking_id}"


def confirmation_email(b: Booking) -> Email:
    body = "\n".join([
        f"Hello {b.guest_name},", "",
        f"Your stay at {b.hotel}, {b.city} is confirmed: {b.room}, {b.nights} night(s) from "
        f"{b.check_in:%A %d %B %Y}.",
        f"Total paid: {_money(b.total_cents)} (authorisation {b.payment_ref}).", "",
        "Your invoice follows in a separate email.", "", "StayHub"])
    return Email(b.guest_email, SUBJECT.format(booking_id=b.id), body)


def provider_url() -> str:
    url = os.environ.get(PROVIDER_URL_ENV)
    if not url:
        raise RuntimeError(f"{PROVIDER_URL_ENV} is not set in this worker's environment; start the worker "
                           f"with stayhub.spawn_worker(..., provider_url=provider.url)")
    return url


def emails_by_booking(deliveries: Iterable) -> Counter:
    """How many confirmation emails each booking got, from provider.deliveries(): 0 lost, 2 a duplicate."""
    counts = Counter()
    for delivery in deliveries:
        subject = delivery.subject if hasattr(delivery, "subject") else delivery["subject"]
        match = BOOKING_IN_SUBJECT.search(subject)
        if match:
            counts[int(match.group(1))] += 1
    return counts


def _money(cents: int) -> str:
    return f"EUR {cents // 100:,}.{cents % 100:02d}"


# -- the invoice ---------------------------------------------------------------------------------------


def invoice_pdf(b: Booking, number: int | None = None) -> bytes:
    """A real, small PDF invoice for the booking (fpdf2)."""
    from fpdf import FPDF

    pdf = FPDF(format=(148, 210))  # A5, in millimetres
    pdf.set_creation_date(INVOICE_DATE)  # the same booking gives the same bytes
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 10, "StayHub - invoice", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)
    lines = [f"Booking #{b.id}" + (f"   invoice {number}" if number else ""),
             f"Guest: {b.guest_name}", f"Hotel: {b.hotel}, {b.city}", f"Room: {b.room}",
             f"Check-in: {b.check_in:%d %B %Y}, {b.nights} night(s) at {_money(b.nightly_cents)}",
             f"Total: {_money(b.total_cents)}", f"Paid with authorisation {b.payment_ref}"]
    for line in lines:
        pdf.cell(0, 7, line.encode("latin-1", "replace").decode("latin-1"), new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def render_invoice_pdf(b: Booking, seconds: float | None = None) -> bytes:
    """The invoice PDF, taking as long as StayHub's renderer does: 1.5 s (or $STAYHUB_INVOICE_S)."""
    started = time.monotonic()
    document = invoice_pdf(b)
    budget = invoice_seconds() if seconds is None else seconds
    time.sleep(max(0.0, budget - (time.monotonic() - started)))
    return document


def invoice_exists(conn: psycopg.Connection, booking_id: int) -> bool:
    return conn.execute(sql.query("stayhub", "invoice_exists"), {"booking_id": booking_id}).fetchone()[0]


def store_invoice(conn: psycopg.Connection, booking_id: int, pdf: bytes) -> int:
    """Store an invoice; return its number. Nothing here stops a second one for the same booking."""
    if not isinstance(pdf, (bytes, bytearray)) or not bytes(pdf).startswith(b"%PDF"):
        raise InvalidArgument("pdf must be the bytes of a PDF document (render_invoice_pdf gives you one).")
    return conn.execute(sql.query("stayhub", "store_invoice"), {"booking_id": booking_id, "pdf": bytes(pdf)}
                        ).fetchone()[0]


def invoices_by_booking(conn: psycopg.Connection) -> Counter:
    return Counter(dict(conn.execute("SELECT booking_id, count(*) FROM invoices GROUP BY booking_id").fetchall()))


# -- the channel manager, from StayHub's side ----------------------------------------------------------


class ChannelManagerTimeout(Exception):
    """The partner did not answer in time. It may still have taken the update: syncing again is safe."""


class ChannelManagerError(Exception):
    """The partner answered with an error, or nothing answered: retry later."""


def channel_manager_url() -> str:
    url = os.environ.get(CHANNEL_MANAGER_URL_ENV)
    if not url:
        raise RuntimeError(f"{CHANNEL_MANAGER_URL_ENV} is not set in this worker's environment; start the worker "
                           "with stayhub.spawn_worker(..., channel_manager_url=partner.url)")
    return url


def push_to_channel_manager(url: str, b: Booking, *, timeout: float = CHANNEL_TIMEOUT_S) -> None:
    """Tell the partner the room is taken (a PUT: sending it twice changes nothing)."""
    data = {"hotel_id": b.hotel_id, "room_id": b.room_id, "check_in": b.check_in.isoformat(),
            "nights": b.nights, "status": b.status}
    try:
        reply = call("PUT", f"{url.rstrip('/')}/availability/{b.id}", data, timeout=timeout)
    except TimeoutError:
        raise ChannelManagerTimeout(f"the channel manager did not answer within {timeout:g} s") from None
    except ServiceUnreachable as error:
        raise ChannelManagerError(str(error)) from None
    if not reply.ok:
        raise ChannelManagerError(f"the channel manager answered {reply.status}: {reply.error}")


# -- the jobs --------------------------------------------------------------------------------------------

handlers = Registry()  # python -m course.programs.stayhub worker runs these


def _booking_or_permanent(conn: psycopg.Connection, booking_id: int) -> Booking:
    found = booking(conn, booking_id)
    if found is None:
        raise PermanentError(f"booking {booking_id} does not exist: nothing to do, ever")
    return found


@handlers.handler("send_confirmation_email", payload={"booking_id": int})
def send_confirmation_email(job, conn) -> None:
    """One email per booking, however many times this job runs.

    The confirmations row, inserted first in a transaction, makes a second run stop (and makes a run that
    overlaps this one wait for it). The Idempotency-Key covers the one gap left: a worker killed after the
    provider accepted the email but before the transaction committed. The next run sends again, and the
    provider answers with the first email instead of a second one."""
    b = _booking_or_permanent(conn, job.payload["booking_id"])
    if b.status == "cancelled":
        return
    key = confirmation_key(b.id)
    with conn.transaction():
        if conn.execute(sql.query("stayhub", "record_confirmation"), {"key": key, "booking_id": b.id}).fetchone() is None:
            return  # an earlier run sent it and committed
        email = confirmation_email(b)
        message_id = send_email(provider_url(), email.to, email.subject, email.body, idempotency_key=key)
        conn.execute(sql.query("stayhub", "set_message_id"), {"key": key, "message_id": message_id})


@handlers.handler("render_invoice", payload={"booking_id": int})
def render_invoice(job, conn) -> None:
    """At most one invoice per booking; none for a cancelled one.

    The booking's row lock makes a second run of this job wait until the first has committed; then it
    sees the invoice and stops. A run killed half-way leaves nothing (its transaction rolls back).
    FOR NO KEY UPDATE, not FOR UPDATE: the other jobs insert rows that reference the booking, and their
    foreign-key checks (FOR KEY SHARE) must not wait 1.5 s for the invoice."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id])
        b = booking(conn, booking_id)
        if b is None or b.status == "cancelled" or invoice_exists(conn, booking_id):
            return
        store_invoice(conn, booking_id, render_invoice_pdf(b))


@handlers.handler("sync_channel_manager", payload={"booking_id": int})
def sync_channel_manager(job, conn) -> None:
    b = _booking_or_permanent(conn, job.payload["booking_id"])
    push_to_channel_manager(channel_manager_url(), b)
    conn.execute(sql.query("stayhub", "record_sync"), {"booking_id": b.id})


# -- checkout, two ways ------------------------------------------------------------------------------


class CheckoutFailed(Exception):
    """A step after the booking was stored failed: the guest has paid and sees an error page."""

    def __init__(self, booking_id: int, step: str, error: BaseException, timings: dict[str, float]):
        super().__init__(f"{step} failed after booking {booking_id} was paid and stored: "
                         f"{type(error).__name__}: {error}")
        self.booking_id = booking_id
        self.step = step
        self.timings = timings


def checkout_inline(conn: psycopg.Connection, guest_id: int, room_id: int, nights: int, *, provider_url: str,
                    channel_manager_url: str) -> tuple[int, dict[str, float]]:
    """Everything in the request, as StayHub did on Monday: (booking id, seconds per step).

    Raises CheckoutFailed when a step after the payment fails: the booking is stored and paid for, and
    the guest gets an error page all the same."""
    timings: dict[str, float] = {}
    started = time.monotonic()
    payment = charge(conn, guest_id, room_id, nights)
    booking_id = insert_booking(conn, guest_id, room_id, nights, payment)  # autocommit: stored now
    timings["payment and insert"] = since(started)

    def step(name: str, action: Callable[[], object]) -> None:
        began = time.monotonic()
        try:
            action()
        except Exception as error:
            timings[name] = since(began)
            raise CheckoutFailed(booking_id, name, error, timings) from None
        timings[name] = since(began)

    b = booking(conn, booking_id)
    email = confirmation_email(b)
    step("email", lambda: send_email(provider_url, email.to, email.subject, email.body))
    step("invoice PDF", lambda: store_invoice(conn, booking_id, render_invoice_pdf(b)))
    step("channel manager", lambda: push_to_channel_manager(channel_manager_url, b))
    return booking_id, timings


def checkout_with_jobs(conn: psycopg.Connection, guest_id: int, room_id: int, nights: int) -> int:
    """What the guest waits for, and nothing else: charge, then the booking and its three jobs in one
    transaction (the reference answer to exercise 12.checkout)."""
    payment = charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id}, max_attempts=MAX_ATTEMPTS)
    return booking_id


def since(started: float) -> float:
    """Seconds from `started` (a time.monotonic() reading) to now, to the millisecond."""
    return round(time.monotonic() - started, 3)


# -- workers ---------------------------------------------------------------------------------------------


def queue_operations(backoff_scale: float = 1.0) -> SimpleNamespace:
    """The reference queue, with the material's retry policy (course.core.backoff: random(0, 2^(n-1)) s,
    capped at 5 minutes) and its waits multiplied by `backoff_scale` (0.01: a hundred times faster)."""
    return reference_operations(fail=partial(queue.fail,
                                             backoff=lambda attempt: backoff_delay(attempt) * backoff_scale))


def spawn_worker(schema: str, *, provider_url: str, channel_manager_url: str | None = None,
                 name: str = "stayhub-worker", concurrency: int = 4, lease_s: float = LEASE_S,
                 backoff_scale: float = 1.0, poll_interval_s: float = 0.5,
                 invoice_s: float | None = None) -> processes.Child:
    """A worker process running StayHub's handlers on `schema` (course.core.worker.Worker underneath).

    A retry is not announced (no NOTIFY): the worker finds it at its next poll. With waits scaled down
    to milliseconds, poll often too (poll_interval_s=0.1), or the poll, not the backoff, sets the pace."""
    if isinstance(backoff_scale, bool) or not isinstance(backoff_scale, (int, float)) or not 0 < backoff_scale <= 1:
        raise InvalidArgument(f"backoff_scale must be more than 0 and at most 1; got {backoff_scale!r}.")
    env = {PROVIDER_URL_ENV: provider_url}
    if channel_manager_url:
        env[CHANNEL_MANAGER_URL_ENV] = channel_manager_url
    if invoice_s is not None:
        env[INVOICE_S_ENV] = str(invoice_s)
    dsn = db.conninfo(schema, application_name=_application_name(name))
    return processes.python(name, "course.programs.stayhub", "worker", "--dsn", dsn,
                            "--concurrency", str(concurrency), "--lease-s", str(lease_s),
                            "--backoff-scale", str(backoff_scale), "--poll-interval-s", str(poll_interval_s),
                            env=env)


def _application_name(worker_name: str) -> str:
    """What the worker's sessions call themselves in pg_stat_activity (unique to this parent process)."""
    return f"{worker_name}-{os.getpid()}"[:63]


def wait_until_ready(conn: psycopg.Connection, workers: Iterable[processes.Child], timeout: float = 120.0) -> None:
    """Return once every worker process is connected and listening (both its sessions are up), so the
    next job is picked up at once instead of after a slow start on a busy machine."""
    workers = list(workers)
    names = [_application_name(w.name) for w in workers]

    def ready() -> bool:
        for child in workers:
            if not child.alive():
                raise CourseError(f"{child.name} exited with code {child.wait()}; its log ends with:\n"
                                  f"{child.log_tail()}")
        sessions = dict(conn.execute("SELECT application_name, count(*) FROM pg_stat_activity "
                                     "WHERE application_name = ANY(%s) GROUP BY application_name", [names]).fetchall())
        return all(sessions.get(name, 0) >= 2 for name in names)

    processes.wait_until(ready, timeout, interval=0.05, what="the workers connected and listening")


def run_worker(dsn: str, *, concurrency: int, lease_s: float, backoff_scale: float,
               poll_interval_s: float = 0.5) -> int:
    import logging

    import fpdf  # noqa: F401  (imported now, not during the first invoice)

    from course.core.worker import Settings, Worker

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    settings = Settings(concurrency=concurrency, lease_s=lease_s, poll_interval_s=poll_interval_s)
    return Worker(dsn, handlers, settings, ops=queue_operations(backoff_scale)).run()


# -- the program -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    top = argparse.ArgumentParser(prog="python -m course.programs.stayhub", description="StayHub's programs.")
    commands = top.add_subparsers(dest="command", required=True)
    work = commands.add_parser("worker", help="run StayHub's jobs")
    work.add_argument("--dsn", required=True)
    work.add_argument("--concurrency", type=int, default=4)
    work.add_argument("--lease-s", type=float, default=LEASE_S)
    work.add_argument("--backoff-scale", type=float, default=1.0)
    work.add_argument("--poll-interval-s", type=float, default=0.5)
    args = top.parse_args(argv)
    return run_worker(args.dsn, concurrency=args.concurrency, lease_s=args.lease_s, backoff_scale=args.backoff_scale,
                      poll_interval_s=args.poll_interval_s)


if __name__ == "__main__":
    raise SystemExit(main())
