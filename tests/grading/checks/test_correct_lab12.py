"""Lab 12's checks pass correct answers written unlike the reference (issue 22): another lock that keeps a
second run out, a lock that refuses and lets the queue retry, the status read under the lock by an UPDATE,
the charge called under another name, a safe checkout written in plain SQL, in one statement per step, or
with a reconcile that locks each booking it finishes, and the answers the hints spell out."""

import sys

import cloudpickle
import psycopg
import pytest

from course.grading import run_check
from course.programs import stayhub

# The handlers below run in the fault injector's worker processes: send them by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

SEED = 7

# -- 12.invoice_worker ------------------------------------------------------------------------------------


def hints_spelled_out(job, conn):
    """The last hint's two lines, in the transaction hint (B) asks for."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id): return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))


def locked_by_an_update(job, conn):
    """An UPDATE that changes nothing takes the same lock as FOR NO KEY UPDATE and returns the status read
    under it."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        row = conn.execute("UPDATE bookings SET status = status WHERE id = %s RETURNING status",
                           [booking_id]).fetchone()
        if row is None or row[0] == "cancelled":
            return
        if conn.execute("SELECT count(*) FROM invoices WHERE booking_id = %s", [booking_id]).fetchone()[0]:
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(stayhub.booking(conn, booking_id)))


def refuses_and_lets_the_queue_retry(job, conn):
    """NOWAIT: a run that meets another's lock raises LockNotAvailable, and the queue runs it again later."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        found = conn.execute("SELECT status FROM bookings WHERE id = %s FOR NO KEY UPDATE NOWAIT",
                             [booking_id]).fetchone()
        if not found or found[0] != "confirmed" or stayhub.invoice_exists(conn, booking_id):
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(stayhub.booking(conn, booking_id)))


def an_advisory_lock_per_booking(job, conn):
    """Round f2: a transaction-scoped advisory lock keyed by the booking keeps a second run out as the row
    lock does, and blocks nothing that references the booking: the same effect, another spelling."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('invoice'), %s::int)", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))


@pytest.mark.slow
@pytest.mark.parametrize("render_invoice", [hints_spelled_out, locked_by_an_update, refuses_and_lets_the_queue_retry,
                                            an_advisory_lock_per_booking],
                         ids=lambda f: f.__name__)
def test_correct_invoice_workers_pass(render_invoice):
    report = run_check("12.invoice_worker", render_invoice=render_invoice, seed=SEED)
    assert report.passed, report.render()


# -- 12.checkout ------------------------------------------------------------------------------------------

from course.programs.stayhub import charge as authorise  # noqa: E402 (issue 22: the charge under another name)
from course.core import queue  # noqa: E402


def charges_through_an_alias(conn, guest_id, room_id, nights):
    """Correct, with the charge imported under another name: judged by the provider's record, not by name."""
    payment = authorise(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return booking_id


def jobs_in_one_call(conn, guest_id, room_id, nights):
    """The jobs in one enqueue_many per type list, inside a transaction begun as a block of its own."""
    payment = stayhub.charge(conn, guest_id=guest_id, room_id=room_id, nights=nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in sorted(stayhub.SIDE_JOBS, reverse=True):
            queue.enqueue_many(conn, job_type, [{"booking_id": booking_id}])
    return int(booking_id)


@pytest.mark.parametrize("checkout", [charges_through_an_alias, jobs_in_one_call], ids=lambda f: f.__name__)
def test_correct_checkouts_pass(checkout):
    report = run_check("12.checkout", checkout=checkout)
    assert report.passed, report.render()


# -- 12.safe_checkout -----------------------------------------------------------------------------------------


def hint_finish(conn, booking_id, payment):
    """The last hint, as written."""
    with conn.transaction():
        if conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s AND status = 'pending' RETURNING id", [payment.ref, booking_id]).fetchone():
            for job_type in stayhub.SIDE_JOBS:
                queue.enqueue(conn, job_type, {"booking_id": booking_id})


def hint_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    hint_finish(conn, booking_id, payment)
    return booking_id


def hint_reconcile(conn):
    for booking_id, guest_id, room_id, nights in conn.execute(
            "SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall():
        hint_finish(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights,
                                                     idempotency_key=stayhub.checkout_key(booking_id)))


def in_plain_sql(conn, guest_id, room_id, nights):
    """The pending row written by hand in a transaction of its own; the key spelled out; the confirm
    decided in Python under the row's lock."""
    with conn.transaction():
        booking_id = conn.execute(
            "INSERT INTO bookings (guest_id, room_id, check_in, nights, total_cents, status) "
            "SELECT %s, id, %s, %s, nightly_cents * %s, 'pending' FROM rooms WHERE id = %s RETURNING id",
            [guest_id, stayhub.CHECK_IN, nights, nights, room_id]).fetchone()[0]
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=f"checkout:{booking_id}")
    _confirm_under_lock(conn, booking_id, payment)
    return booking_id


def _confirm_under_lock(conn, booking_id, payment):
    with conn.transaction():
        status = conn.execute("SELECT status FROM bookings WHERE id = %s FOR UPDATE", [booking_id]).fetchone()
        if status is None or status[0] != "pending":
            return
        conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s",
                     [payment.ref, booking_id])
        queue.enqueue_many(conn, "send_confirmation_email", [{"booking_id": booking_id}])
        queue.enqueue_many(conn, "render_invoice", [{"booking_id": booking_id}])
        queue.enqueue_many(conn, "sync_channel_manager", [{"booking_id": booking_id}])


def reconcile_one_at_a_time(conn):
    """Walks the pending bookings by id, one query each, until there is none after the last."""
    last = 0
    while True:
        row = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' AND id > %s "
                           "ORDER BY id LIMIT 1", [last]).fetchone()
        if row is None:
            return last
        last, guest_id, room_id, nights = row
        _confirm_under_lock(conn, last, stayhub.charge(conn, guest_id, room_id, nights,
                                                       idempotency_key=stayhub.checkout_key(last)))


CONFIRM_WITH_JOBS = """
WITH confirmed AS (
    UPDATE bookings SET status = 'confirmed', payment_ref = %(ref)s
    WHERE id = %(id)s AND status = 'pending' RETURNING id)
INSERT INTO jobs (type, payload)
SELECT job_type, jsonb_build_object('booking_id', confirmed.id)
FROM confirmed, unnest(%(types)s::text[]) AS job_type"""


def one_statement_per_step(conn, guest_id, room_id, nights):
    """Each step one statement: the confirm and its three jobs in a single UPDATE ... INSERT (one
    statement is one transaction)."""
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    conn.execute(CONFIRM_WITH_JOBS, {"ref": payment.ref, "id": booking_id, "types": list(stayhub.SIDE_JOBS)})
    return booking_id


def reconcile_newest_first(conn):
    """Lock-free (charging under a row lock is against the rules, in reconcile too): newest first, each
    charged with no transaction open, then confirmed with its jobs in one statement only if still pending."""
    for (booking_id,) in conn.execute("SELECT id FROM bookings WHERE status = 'pending' ORDER BY id DESC").fetchall():
        row = conn.execute("SELECT guest_id, room_id, nights FROM bookings WHERE id = %s AND status = 'pending'",
                           [booking_id]).fetchone()
        if row is None:
            continue  # finished meanwhile by its checkout
        payment = stayhub.charge(conn, *row, idempotency_key=stayhub.checkout_key(booking_id))
        conn.execute(CONFIRM_WITH_JOBS, {"ref": payment.ref, "id": booking_id, "types": list(stayhub.SIDE_JOBS)})


@pytest.mark.parametrize("checkout, reconcile", [
    (hint_checkout, hint_reconcile),
    (in_plain_sql, reconcile_one_at_a_time),
    (one_statement_per_step, reconcile_newest_first),
    (in_plain_sql, reconcile_newest_first),
], ids=["the_hints", "plain_sql", "one_statement_per_step", "plain_sql_with_a_newest_first_reconcile"])
def test_correct_safe_checkouts_pass(checkout, reconcile):
    report = run_check("12.safe_checkout", safe_checkout=checkout, reconcile=reconcile)
    assert report.passed, report.render()


def test_correct_safe_checkout_passes_other_seeds_too():
    report = run_check("12.safe_checkout", safe_checkout=one_statement_per_step, reconcile=reconcile_one_at_a_time,
                       seed=99)
    assert report.passed, report.render()


def reconcile_charges_all_then_confirms_all(conn):
    """A red-team correct answer in two passes: every pending booking charged, then each confirmed."""
    pending = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall()
    payments = {booking_id: stayhub.charge(conn, guest_id, room_id, nights,
                                           idempotency_key=stayhub.checkout_key(booking_id))
                for booking_id, guest_id, room_id, nights in pending}
    for booking_id, payment in payments.items():
        hint_finish(conn, booking_id, payment)


@pytest.mark.slow
@pytest.mark.parametrize("reconcile", [reconcile_charges_all_then_confirms_all],
                         ids=lambda f: f.__name__)
def test_red_team_correct_reconciles_pass(reconcile):
    report = run_check("12.safe_checkout", safe_checkout=hint_checkout, reconcile=reconcile)
    assert report.passed, report.render()
