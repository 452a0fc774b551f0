"""Lab 12's checks pass correct answers written unlike the reference (issue 22): another lock that keeps a
second run out, a lock that refuses and lets the queue retry, the status read under the lock by an UPDATE,
the charge called under another name, and the answers the hints spell out."""

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


@pytest.mark.slow
@pytest.mark.parametrize("render_invoice", [hints_spelled_out, locked_by_an_update, refuses_and_lets_the_queue_retry],
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
