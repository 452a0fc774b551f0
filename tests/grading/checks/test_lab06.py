"""Lab 06's checks fail plausible wrong answers, for the reason a learner needs to hear — and the StayHub
acceptance test (real worker processes SIGKILLed after sending, emails counted at the real provider)
catches a handler that is not idempotent on its own, with the seed printed."""

import os
import sys
import time

import cloudpickle
import pytest

from course.grading import run_check
from course.grading.checks import lab06
from course.grading.report import Report
from course.grading.trial import Trial
from course.programs.email_provider import EmailProvider, send_email

from .wrong_answers import assert_fails_with, failed


# What the notebook's set-up cell gives a learner's handler (the check reads the same tables).

def provider_url():
    return os.environ["EMAIL_PROVIDER_URL"]


def confirmation_email(conn, booking_id):
    guest, email, nights, hotel = conn.execute(
        "SELECT b.guest, b.email, b.nights, h.name FROM bookings b JOIN hotels h ON h.id = b.hotel_id "
        "WHERE b.id = %s", [booking_id]).fetchone()
    time.sleep(0.05)
    return email, f"Your StayHub booking #{booking_id} is confirmed", f"Hello {guest}, {nights} night(s) at {hotel}."


# -- 06.confirm_booking ----------------------------------------------------------------------------


def unconditional(job, conn):
    with conn.transaction():
        conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s", [job.payload["booking_id"]])
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = 1")


def room_taken_every_time(job, conn):
    with conn.transaction():
        conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending'",
                     [job.payload["booking_id"]])
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = 1")


def check_then_act(job, conn):
    with conn.transaction():
        status, hotel = conn.execute("SELECT status, hotel_id FROM bookings WHERE id = %s",
                                     [job.payload["booking_id"]]).fetchone()
        if status == "pending":
            conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s", [job.payload["booking_id"]])
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [hotel])


def two_commits(job, conn):
    changed = conn.execute(  # autocommit: the status change commits on its own
        "UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' RETURNING hotel_id",
        [job.payload["booking_id"]]).fetchone()
    if changed:
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])


def raises_when_nothing_to_do(job, conn):
    with conn.transaction():
        changed = conn.execute(
            "UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' RETURNING hotel_id",
            [job.payload["booking_id"]]).fetchone()
        if not changed:
            raise RuntimeError(f"booking {job.payload['booking_id']} is not pending")
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])


def confirms_a_cancelled_booking(job, conn):
    with conn.transaction():
        changed = conn.execute(  # "not confirmed yet" is not "pending": a cancelled booking comes back
            "UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status <> 'confirmed' RETURNING hotel_id",
            [job.payload["booking_id"]]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])


@pytest.mark.parametrize("confirm_booking, reasons", [
    (unconditional, ["the job delivered again (attempt 2): no second room"]),
    (room_taken_every_time, ["the job delivered again (attempt 2): no second room"]),
    (check_then_act, ["two workers run the same booking's job at the same moment"]),
    (two_commits, ["the room update fails once"]),
    (raises_when_nothing_to_do, [f"confirm_booking(job for booking {lab06.FIRST_BOOKING}) redelivered"]),
    (confirms_a_cancelled_booking, ["a cancelled booking: nothing to do"]),
], ids=lambda value: getattr(value, "__name__", ""))
def test_confirm_booking_wrong_answers_fail(confirm_booking, reasons):
    assert_fails_with(run_check("06.confirm_booking", confirm_booking=confirm_booking), *reasons)


# -- 06.send_confirmation --------------------------------------------------------------------------


def no_protection(job, conn):
    send_email(provider_url(), *confirmation_email(conn, job.payload["booking_id"]))


def key_per_attempt(job, conn):
    send_email(provider_url(), *confirmation_email(conn, job.payload["booking_id"]),
               idempotency_key=f"confirm:{job.id}:{job.attempts}")


def key_per_job(job, conn):
    send_email(provider_url(), *confirmation_email(conn, job.payload["booking_id"]), idempotency_key=f"job:{job.id}")


def table_without_key(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        if conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING",
                        [f"confirm:{booking_id}"]).rowcount:
            send_email(provider_url(), *confirmation_email(conn, booking_id))


def mark_committed_before_sending(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm:{booking_id}"
    if conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [key]).rowcount:
        send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=key)


def swallows_errors(job, conn):
    booking_id = job.payload["booking_id"]
    try:
        send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=f"confirm:{booking_id}")
    except Exception:
        pass  # "logged"


@pytest.mark.parametrize("send_confirmation, reasons", [
    (no_protection, ["delivered again after it finished", "a second job for the same booking"]),
    (key_per_attempt, ["delivered again after it finished", "the re-run sends no second email"]),
    (key_per_job, ["a second job for the same booking"]),
    (table_without_key, ["the re-run sends no second email"]),
    (mark_committed_before_sending, ["the provider was down at the first attempt"]),
    (swallows_errors, ["raises when the provider did not accept the email"]),
], ids=lambda value: getattr(value, "__name__", ""))
@pytest.mark.slow
def test_send_confirmation_wrong_answers_fail(send_confirmation, reasons):
    assert_fails_with(run_check("06.send_confirmation", send_confirmation=send_confirmation), *reasons)


@pytest.mark.slow
def test_the_failure_names_the_keys_the_provider_saw():
    text = run_check("06.send_confirmation", send_confirmation=key_per_attempt).render()
    assert "['confirm:1:1', 'confirm:1:2']" in text and "name the effect" in text


@pytest.mark.slow
def test_the_acceptance_test_on_its_own_catches_a_handler_that_is_not_idempotent():
    """Without the cases on cue: only worker processes SIGKILLed after sending, emails counted at the
    provider, a timeline of the doubled job and the seed to replay it."""
    t = Trial("06.send_confirmation")
    box = t.scratch()
    provider = EmailProvider.start(latency_s=0.02, seed=1)
    # The handler travels to the workers by value, as a notebook's does: no worker imports pytest.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        bookings = lab06.install_stayhub(box.conn)
        inbox = lab06.Inbox(box.conn, provider)
        lab06._the_acceptance_test(t, box, no_protection, inbox, provider, bookings[:10], seed=11)
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
        provider.stop()
        t.close()
    report = Report("06.send_confirmation", tuple(t.results), seed=t.seed)
    text = report.render()
    assert failed(report) == ["no guest got two emails, even when their job ran more than once"], text
    # The story told is of a booking with one job, when the kills doubled one (the SIGKILL is in it), or
    # else of a booking enqueued twice (its other job is in it): which one depends on the processes' timing.
    assert "SIGKILL injected" in text or "the same booking)" in text, text
    assert "outside" in text and "delivered (HTTP 200, Idempotency-Key None)" in text
    assert "check('06.send_confirmation', seed=11)" in text


def test_the_quiz_says_what_to_reconsider_without_giving_the_answer():
    report = run_check("06.quiz", q1="b", q2="b", q3="b", q4="c")
    text = report.render()
    assert failed(report) == ["q1: what a processed-keys table in the same transaction can make happen once"]
    assert "which of these effects can a rollback of our transaction take back?" in text


# -- inputs unlike the demo's: the demo has one hotel, id 1 ----------------------------------------


def hard_coded_hotel(job, conn):
    """Right in every way but one: the room is taken from the demo's hotel, whatever the booking's."""
    with conn.transaction():
        changed = conn.execute(
            "UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' RETURNING hotel_id",
            [job.payload["booking_id"]]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = 1")


def test_a_room_taken_from_the_demos_hotel_fails():
    report = run_check("06.confirm_booking", confirm_booking=hard_coded_hotel)
    assert_fails_with(report, "from the booking's own hotel")
    assert "hotel_id" in report.render()
