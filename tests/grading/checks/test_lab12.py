"""Lab 12's checks fail the material's red flags and other plausible wrong answers, for the reason a
learner needs to hear: jobs enqueued after the booking's commit or on another connection, side work left
in the request, a safe checkout that charges before its pending row (or without its key, or confirms
twice), a reconcile that leaves bookings pending, a worker step with one piece of labs 03, 04 or 07 missing or
misplaced, and an invoice worker that checks without locking (or locks without checking).

The fault-injecting checks run with fixed seeds here, so a failure can be replayed."""

import random
import sys
import uuid
from datetime import datetime, timezone

import cloudpickle
import psycopg
import pytest

from course.grading import run_check
from course.core import queue
from course.programs import stayhub
from course.programs.email_provider import TransientEmailError

from .wrong_answers import assert_fails_with, enqueue_side_jobs, failed, fails_exactly

# The handlers below run in the fault injector's worker processes: send them by value, not as imports
# of this test module.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

SEED = 7


def assert_passes_except(report, *fragments: str) -> None:
    assert_fails_with(report, *fragments)
    for name in failed(report):
        assert any(fragment in name for fragment in fragments), f"unexpected failure {name!r}:\n{report.render()}"


# -- 12.checkout: the red flag "jobs enqueued after committing the booking" --------------------------------


def enqueue_after_commit(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)  # autocommit: committed here
    enqueue_side_jobs(conn, booking_id)
    return booking_id


def jobs_on_another_connection(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        with psycopg.connect(conn.info.dsn, autocommit=True) as other:  # "the queue is another system"
            enqueue_side_jobs(other, booking_id)
    return booking_id


def invoice_still_in_the_request(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        enqueue_side_jobs(conn, booking_id)
    stayhub.render_invoice_pdf(stayhub.booking(conn, booking_id), seconds=1.5)  # "the guest wants the PDF"
    return booking_id


def a_copy_in_the_jobs(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:  # "saves each worker a query"
            queue.enqueue(conn, job_type, {"booking_id": booking_id, "guest_id": guest_id, "nights": nights})
    return booking_id


def returns_the_payment(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return payment


@pytest.mark.slow
def test_a_copy_of_the_booking_in_the_jobs_is_data_not_an_id():
    report = run_check("12.checkout", checkout=a_copy_in_the_jobs)
    assert_fails_with(report, "each job carries the booking's id and nothing else")


@pytest.mark.slow
def test_returning_the_payment_is_not_returning_the_bookings_id():
    report = run_check("12.checkout", checkout=returns_the_payment)
    assert_fails_with(report, "returns the new booking's id")


def test_enqueueing_after_the_commit_leaves_a_paid_booking_without_its_email():
    report = run_check("12.checkout", checkout=enqueue_after_commit)
    assert_passes_except(report, "when the job cannot be stored, the booking is not stored either")


def test_jobs_on_another_connection_outlive_a_booking_that_failed():
    report = run_check("12.checkout", checkout=jobs_on_another_connection)
    # Often the email job also runs before the booking is committed, finds no booking and gives up.
    assert_fails_with(report, "if the booking does not commit, no job is left behind")


@pytest.mark.slow
def test_side_work_left_in_the_request_is_too_slow():
    report = run_check("12.checkout", checkout=invoice_still_in_the_request)
    assert_passes_except(report, "checkout answers fast")


def fast_invoice_in_the_request(conn, guest_id, room_id, nights):
    """Red team (issue 22): the invoice made in the request at full speed, its job enqueued all the same:
    it answered under the time limit, and passed."""
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(stayhub.booking(conn, booking_id), seconds=0))
        enqueue_side_jobs(conn, booking_id)
    return booking_id


def jobs_delayed_a_minute(conn, guest_id, room_id, nights):
    """Red team (issue 22): jobs delayed 60 s "to let the commit land" passed 'the email arrives' at load
    48, where the stretched wait outlasted the delay."""
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id}, delay_s=60)
    return booking_id


@pytest.mark.parametrize("checkout, fails, says", [
    (fast_invoice_in_the_request, "the checkout does none of the side work itself", "an invoice already stored"),
    (jobs_delayed_a_minute, "the checkout does none of the side work itself", "jobs due after the booking"),
], ids=["fast_invoice_in_the_request", "jobs_delayed_a_minute"])
def test_side_work_done_in_the_request_or_delayed_fails_whatever_the_speed(checkout, fails, says):
    report = run_check("12.checkout", checkout=checkout)
    assert_passes_except(report, fails)
    result = next(r for r in report.results if r.name.startswith(fails))
    assert says in str(result.got), report.render()


def begins_and_commits_by_hand(conn, guest_id, room_id, nights):
    """Red team (issue 22): BEGIN and COMMIT by hand are one transaction when nobody else has one open;
    inside the caller's, the COMMIT ends it (and the check's message blamed a connection of its own)."""
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    conn.execute("BEGIN")
    try:
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        enqueue_side_jobs(conn, booking_id)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return booking_id


def test_a_commit_by_hand_ends_the_callers_transaction_and_is_told_so():
    report = run_check("12.checkout", checkout=begins_and_commits_by_hand)
    assert_passes_except(report, "uses the connection it is given", "on a connection in psycopg's default mode")
    result = next(r for r in report.results if r.name.startswith("uses the connection it is given"))
    assert "your COMMIT ended the caller's transaction" in result.note, report.render()


def charges_inside_the_transaction(conn, guest_id, room_id, nights):
    """Everything in one transaction, the card too: the booking's transaction stays open ~300 ms while the
    payment provider thinks."""
    with conn.transaction():
        payment = stayhub.charge(conn, guest_id, room_id, nights)
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return booking_id


def jobs_before_the_booking(conn, guest_id, room_id, nights):
    """The jobs committed first (autocommit), the booking after: its failure leaves jobs for nothing."""
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    booking_id = conn.execute("SELECT nextval(pg_get_serial_sequence('bookings', 'id'))").fetchone()[0]
    for job_type in stayhub.SIDE_JOBS:
        queue.enqueue(conn, job_type, {"booking_id": booking_id})
    conn.execute("INSERT INTO bookings (id, guest_id, room_id, check_in, nights, total_cents, payment_ref, status) "
                 "VALUES (%s, %s, %s, %s, %s, %s, %s, 'confirmed')",
                 [booking_id, guest_id, room_id, stayhub.CHECK_IN, nights, payment.total_cents, payment.ref])
    return booking_id


def on_its_own_connection(conn, guest_id, room_id, nights):
    """One transaction, but on a connection of its own: the caller's rollback cannot take it back."""
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with psycopg.connect(conn.info.dsn, autocommit=True) as own, own.transaction():
        own.execute(f"SET search_path TO {conn.execute('SHOW search_path').fetchone()[0]}")
        booking_id = stayhub.insert_booking(own, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(own, job_type, {"booking_id": booking_id})
    return booking_id


def test_charging_the_card_inside_the_transaction_fails_the_shared_no_external_call_rule():
    """The same rule checker as every lab that asks for it (checks/shared.py), caught in lab 12."""
    report = run_check("12.checkout", checkout=charges_inside_the_transaction)
    assert failed(report) == ["stayhub.charge (the card, ~300 ms at the payment provider) is called with no "
                              "transaction open (not inside the transaction), once, and the booking carries its "
                              "authorisation"], report.render()
    assert "while your session was 'idle in transaction'" in report.render()
    assert "call stayhub.charge before `with conn.transaction():`" in report.render()


def never_charges(conn, guest_id, room_id, nights):
    """A Payment made up rather than asked of the provider: the guest is never charged."""
    payment = stayhub.Payment("auth_0000000000", 14500 * nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        enqueue_side_jobs(conn, booking_id)
    return booking_id


def charges_twice(conn, guest_id, room_id, nights):
    """A "pre-authorisation" first, then the real one: the guest's card is charged twice."""
    stayhub.charge(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        enqueue_side_jobs(conn, booking_id)
    return booking_id


def begins_by_hand_before_the_charge(conn, guest_id, room_id, nights):
    """BEGIN written by hand, the charge after it: the transaction is open across the provider's call."""
    conn.execute("BEGIN")
    try:
        payment = stayhub.charge(conn, guest_id, room_id, nights)
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        enqueue_side_jobs(conn, booking_id)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return booking_id


def tries_again_after_a_database_error(conn, guest_id, room_id, nights):
    """Red team red12c (w09): the whole checkout tried once more when its transaction fails: the card is
    charged again (and the guest, who sees an error all the same, has two holds)."""
    for attempt in (1, 2):
        payment = stayhub.charge(conn, guest_id, room_id, nights)
        try:
            with conn.transaction():
                booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
                enqueue_side_jobs(conn, booking_id)
            return booking_id
        except psycopg.Error:
            if attempt == 2:
                raise


@pytest.mark.parametrize("checkout, fails, says", [
    (tries_again_after_a_database_error, "a checkout whose transaction fails has charged the card once",
     "authorisation(s) for"),
    (never_charges, "stayhub.charge (the card, ~300 ms at the payment provider) is called with no transaction open",
     "the provider authorised no card"),
    (charges_twice, "stayhub.charge (the card, ~300 ms at the payment provider) is called with no transaction open",
     "2 authorisation(s)"),
    (begins_by_hand_before_the_charge, "stayhub.charge (the card, ~300 ms at the payment provider) is called with "
     "no transaction open", "while your session was 'idle in transaction'"),
], ids=["tries_again_after_a_database_error", "never_charges", "charges_twice", "begins_by_hand"])
def test_the_card_is_charged_once_before_the_transaction_by_the_providers_record(checkout, fails, says):
    report = run_check("12.checkout", checkout=checkout)
    assert any(fails in name for name in failed(report)), report.render()
    assert says in report.render(), report.render()


def unique_key_per_job_type(conn, guest_id, room_id, nights):
    """Blind round f3 (b1): unique_key = the job type: while the first booking's jobs wait, the next
    booking's enqueues store nothing."""
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id}, unique_key=job_type)
    return booking_id


def reads_its_id_with_max(conn, guest_id, room_id, nights):
    """Blind round f3 (c1): the id read back with SELECT max(id): another checkout committing in between
    gets the jobs and the answer."""
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        booking_id = conn.execute("SELECT max(id) FROM bookings").fetchone()[0]
        enqueue_side_jobs(conn, booking_id)
    return booking_id


def charges_one_night(conn, guest_id, room_id, nights):
    """Blind round f3 (h1): the card authorised for one night, whatever the stay."""
    payment = stayhub.charge(conn, guest_id, room_id, 1)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        enqueue_side_jobs(conn, booking_id)
    return booking_id


def commits_a_caller_not_in_autocommit(conn, guest_id, room_id, nights):
    """Blind round f3 (r1): conn.commit() "to be sure it is saved": on psycopg's default connection it
    commits the caller's open transaction."""
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        enqueue_side_jobs(conn, booking_id)
    if not conn.autocommit:
        conn.commit()
    return booking_id


def reads_back_the_guests_newest_booking_of_the_room(conn, guest_id, room_id, nights):
    """Blind round f4 (f4b12, w_latest_by_guest_room): the id read back after the commit as the guest's newest
    booking of that room: a double click in another tab commits one too, and its id comes back."""
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        enqueue_side_jobs(conn, booking_id)
    return conn.execute("SELECT id FROM bookings WHERE guest_id = %s AND room_id = %s ORDER BY id DESC LIMIT 1",
                        [guest_id, room_id]).fetchone()[0]


def a_double_click_guard(conn, guest_id, room_id, nights):
    """Blind round f4 (f4b12, w_double_click_guard): the same stay booked in the last 30 s returns that
    booking's id, and this checkout charges and stores nothing."""
    recent = conn.execute("SELECT id FROM bookings WHERE guest_id = %s AND room_id = %s AND nights = %s "
                          "AND created_at > now() - interval '30 seconds' ORDER BY id DESC LIMIT 1",
                          [guest_id, room_id, nights]).fetchone()
    if recent is not None:
        return recent[0]
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        enqueue_side_jobs(conn, booking_id)
    return booking_id


@pytest.mark.parametrize("checkout", [reads_back_the_guests_newest_booking_of_the_room, a_double_click_guard],
                         ids=["reads_back_the_guests_newest_booking", "a_double_click_guard"])
def test_a_checkout_is_told_apart_from_the_same_stay_in_another_tab(checkout):
    """Round f4: the other session between the statements was always another guest's checkout; it is now the
    same guest checking out the same stay in another tab."""
    report = run_check("12.checkout", checkout=checkout)
    assert "another checkout committing between any two of its statements" in " ".join(
        r.name for r in report.results if r.reached and not r.passed), report.render()
    assert "in another tab" in report.render()


@pytest.mark.parametrize("checkout, reasons", [
    (unique_key_per_job_type, ["checkouts one after another, earlier bookings' jobs still waiting"]),
    (reads_its_id_with_max, ["another checkout committing between any two of its statements"]),
    (charges_one_night, ["each card is authorised for the whole stay"]),
    (commits_a_caller_not_in_autocommit, ["on a connection in psycopg's default mode (not autocommit)"]),
], ids=["unique_key_per_job_type", "reads_its_id_with_max", "charges_one_night", "commits_a_caller_not_in_autocommit"])
def test_a_blind_round_checkout_fails_the_rule_it_breaks(checkout, reasons):
    """Blind round f3: each passed before the check drew several checkouts, another session between the
    statements, stays longer than a night and a caller in psycopg's default mode."""
    report = run_check("12.checkout", checkout=checkout)
    assert fails_exactly(report, reasons), report.render()


@pytest.mark.parametrize("checkout, reason", [
    (jobs_before_the_booking, "when the booking cannot be stored, no job is stored either"),
    (on_its_own_connection, "uses the connection it is given (the caller's rollback takes the booking"),
], ids=["jobs_before_the_booking", "on_its_own_connection"])
def test_the_shared_jobs_in_the_business_transaction_rule_catches_it_in_lab_12(checkout, reason):
    """02 and 05 ask for it first; 12.checkout calls the same checker (checks/shared.py)."""
    report = run_check("12.checkout", checkout=checkout)
    assert_fails_with(report, reason)


# -- 12.booking_worker: the worker step, each piece of labs 03, 04 and 07 left out or misplaced once -------


def booked_route(conn, job, error):
    """The right part of most wrong workers below: 07.route's order, through the fenced queue calls."""
    if isinstance(error, queue.PermanentError):
        queue.bury(conn, job, "permanent", error)
    elif job.attempts >= job.max_attempts:
        queue.bury(conn, job, "max_attempts", error)
    else:
        delay_s = queue.backoff_delay(job.attempts)
        if getattr(error, "retry_after_s", None):
            delay_s = max(delay_s, error.retry_after_s)
        queue.retry(conn, job, delay_s, error)


def returns_nothing(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is not None:
        try:
            handler(job, conn)
        except Exception as error:
            booked_route(conn, job, error)
        else:
            queue.ack(conn, job)


def all_in_one_transaction(conn, handler, lease_s=stayhub.LEASE_S):
    """'Claim, send and ack together or not at all': the provider is called with the claim uncommitted."""
    with conn.transaction():
        job = queue.claim_one(conn, lease_s=lease_s)
        if job is None:
            return None
        try:
            handler(job, conn)
        except Exception as error:
            booked_route(conn, job, error)
        else:
            queue.ack(conn, job)
    return job.id


def acks_before_sending(conn, handler, lease_s=stayhub.LEASE_S):
    """Lab 04's delete-on-read: the job is done as far as the queue knows before the email is sent."""
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    queue.ack(conn, job)
    try:
        handler(job, conn)
    except Exception as error:
        booked_route(conn, job, error)
    return job.id


def deletes_on_claim(conn, handler, lease_s=stayhub.LEASE_S):
    """The claim is a DELETE ... RETURNING: at most once. A failure puts the job back as a new one."""
    row = conn.execute("DELETE FROM jobs WHERE id = (SELECT id FROM jobs WHERE run_at <= now() "
                       "ORDER BY priority DESC, run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) "
                       "RETURNING id, type, payload, priority, attempts + 1, max_attempts").fetchone()
    if row is None:
        return None
    job = queue.Job(row[0], "default", row[1], row[2], row[3], row[4], row[5], uuid.uuid4(), datetime.now(timezone.utc))
    try:
        handler(job, conn)
    except Exception as error:
        conn.execute("INSERT INTO jobs (id, type, payload, priority, attempts, max_attempts, last_error) "
                     "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                     [job.id, job.type, psycopg.types.json.Jsonb(job.payload), job.priority, job.attempts,
                      job.max_attempts, str(error)])
    return job.id


def acks_by_id_alone(conn, handler, lease_s=stayhub.LEASE_S):
    """The lesson's plain ack, by id: it deletes the job another worker claimed when the lease ran out."""
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except Exception as error:
        booked_route(conn, job, error)
    else:
        conn.execute("DELETE FROM jobs WHERE id = %s", [job.id])
    return job.id


def select_then_update(conn, handler, lease_s=stayhub.LEASE_S):
    """Lab 03's race: find the most urgent job, then lease it by id; another worker may claim it in between."""
    found = conn.execute("SELECT id FROM jobs WHERE run_at <= now() ORDER BY priority DESC, run_at, id LIMIT 1").fetchone()
    if found is None:
        return None
    row = conn.execute("UPDATE jobs SET attempts = attempts + 1, lease_token = gen_random_uuid(), "
                       "run_at = now() + make_interval(secs => %s) WHERE id = %s RETURNING id, queue, type, payload, "
                       "priority, attempts, max_attempts, lease_token, run_at", [lease_s, found[0]]).fetchone()
    job = queue.Job(*row)
    try:
        handler(job, conn)
    except Exception as error:
        booked_route(conn, job, error)
    else:
        queue.ack(conn, job)
    return job.id


def routed_with(route):
    def work_one(conn, handler, lease_s=stayhub.LEASE_S):
        job = queue.claim_one(conn, lease_s=lease_s)
        if job is None:
            return None
        try:
            handler(job, conn)
        except Exception as error:
            route(conn, job, error)
        else:
            queue.ack(conn, job)
        return job.id
    return work_one


def retry_permanent_errors_too(conn, job, error):
    if job.attempts >= job.max_attempts:
        queue.bury(conn, job, "max_attempts", error)
    else:
        queue.retry(conn, job, max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0), error)


def retry_forever(conn, job, error):
    if isinstance(error, queue.PermanentError):
        queue.bury(conn, job, "permanent", error)
    else:
        queue.retry(conn, job, max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0), error)


def backoff_alone(conn, job, error):
    """queue.fail: permanent, budget and backoff right, but the provider's Retry-After is never read."""
    queue.fail(conn, job, error)


def retry_at_once(conn, job, error):
    """The red flag 'retries immediately': the route is right, every wait is 0 s (inside its bounds)."""
    if isinstance(error, queue.PermanentError):
        queue.bury(conn, job, "permanent", error)
    elif job.attempts >= job.max_attempts:
        queue.bury(conn, job, "max_attempts", error)
    else:
        queue.retry(conn, job, getattr(error, "retry_after_s", None) or 0.0, error)


def lets_the_error_escape(conn, handler, lease_s=stayhub.LEASE_S):
    """Catches the provider's errors only: a bug of ours (a KeyError) escapes, and the job waits out its lease."""
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except (TransientEmailError, queue.PermanentError) as error:
        booked_route(conn, job, error)
    else:
        queue.ack(conn, job)
    return job.id


def claims_with(lease_s_taken):
    """The right worker, but its claim takes a lease of its own choosing, whatever lease_s says."""
    def work_one(conn, handler, lease_s=stayhub.LEASE_S):
        job = queue.claim_one(conn, **lease_s_taken)
        if job is None:
            return None
        try:
            handler(job, conn)
        except Exception as error:
            booked_route(conn, job, error)
        else:
            queue.ack(conn, job)
        return job.id
    return work_one


def buries_only_the_providers_422(conn, job, error):
    """Red team red12c (w05): only EmailRejected is dead-lettered at once; another PermanentError (the
    booking is gone) is retried until the budget runs out."""
    from course.programs.email_provider import EmailRejected
    if isinstance(error, EmailRejected):
        queue.bury(conn, job, "permanent", error)
    elif job.attempts >= job.max_attempts:
        queue.bury(conn, job, "max_attempts", error)
    else:
        queue.retry(conn, job, max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0), error)


def budget_of_eight(conn, job, error):
    """Red team red12c (w08): StayHub's 8 attempts written in, not the job's max_attempts."""
    if isinstance(error, queue.PermanentError):
        queue.bury(conn, job, "permanent", error)
    elif job.attempts >= stayhub.MAX_ATTEMPTS:
        queue.bury(conn, job, "max_attempts", error)
    else:
        queue.retry(conn, job, max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0), error)


def retries_by_id_alone(conn, job, error):
    """Red team red12c (w17): a retry written by hand to fold in Retry-After, by id: after its lease ran out it
    pushes back the job another worker now runs."""
    if isinstance(error, queue.PermanentError):
        queue.bury(conn, job, "permanent", error)
    elif job.attempts >= job.max_attempts:
        queue.bury(conn, job, "max_attempts", error)
    else:
        delay_s = max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0)
        conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s), lease_token = NULL, last_error = %s "
                     "WHERE id = %s", [delay_s, str(error), job.id])


def reads_the_token_then_deletes_by_id(conn, handler, lease_s=stayhub.LEASE_S):
    """Red team red12c (w20): the ack asks whether the lease is still its own, then deletes by id: another
    worker that claims the job between the two statements loses it."""
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except Exception as error:
        booked_route(conn, job, error)
    else:
        mine = conn.execute("SELECT lease_token = %s FROM jobs WHERE id = %s", [job.lease_token, job.id]).fetchone()
        if mine and mine[0]:
            conn.execute("DELETE FROM jobs WHERE id = %s", [job.id])
    return job.id


def refreshes_its_lease_by_id_before_acking(conn, handler, lease_s=stayhub.LEASE_S):
    """Blind round f3 (z3): "in case the send was slow" it pushes the job's run_at on by id, then acks
    (fenced): a worker whose lease ran out moves the retry of the worker that claimed the job since."""
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except Exception as error:
        booked_route(conn, job, error)
    else:
        conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s", [lease_s, job.id])
        queue.ack(conn, job)
    return job.id


BOOKING_RETURNS = "returns the id of the job it worked, None when no job is ready"
BOOKING_IDLE = "no transaction is open while the handler runs"
BOOKING_ACKED = "a job whose handler returned is acked"
BOOKING_PERMANENT = "a permanent error (PermanentError, the provider's 422) goes to the dead-letter table at once"
BOOKING_POISON = "a job failing at its last attempt ends in the dead-letter table"
BOOKING_RETRIED = "a transient failure is handed back with its error"
BOOKING_FENCED = "a worker whose lease ran out while its handler ran leaves the job to the worker that claimed it"
BOOKING_ONE_AT_A_TIME = "another worker between any two of its statements: no job is worked by two workers"
BOOKING_LOST = "killed at any statement boundary, nothing is lost"

# name: (the answer, the checks it must fail, the checks it may fail besides)
WRONG_BOOKING_WORKERS = {
    "returns_nothing": (returns_nothing, [BOOKING_RETURNS], []),
    "all_in_one_transaction": (all_in_one_transaction, [BOOKING_IDLE], []),
    "acks_before_sending": (acks_before_sending, [BOOKING_LOST],
                            [BOOKING_RETRIED, BOOKING_PERMANENT, BOOKING_POISON, BOOKING_FENCED]),
    "deletes_on_claim": (deletes_on_claim, [BOOKING_LOST],
                         [BOOKING_RETRIED, BOOKING_PERMANENT, BOOKING_POISON, BOOKING_FENCED, BOOKING_ACKED]),
    "acks_by_id_alone": (acks_by_id_alone, [BOOKING_FENCED], []),
    "select_then_update": (select_then_update, [BOOKING_ONE_AT_A_TIME], []),
    "retries_permanent_errors": (routed_with(retry_permanent_errors_too), [BOOKING_PERMANENT], []),
    "retries_forever": (routed_with(retry_forever), [BOOKING_POISON], []),
    "ignores_retry_after": (routed_with(backoff_alone), [BOOKING_RETRIED], []),
    "lets_the_error_escape": (lets_the_error_escape, [BOOKING_RETRIED], []),
    "retries_at_once": (routed_with(retry_at_once), [BOOKING_RETRIED], []),
    "ignores_lease_s": (claims_with({}), [BOOKING_RETURNS], []),
    "lease_of_60_written_in": (claims_with({"lease_s": 60}), [BOOKING_RETURNS], []),
    "buries_only_the_providers_422": (routed_with(buries_only_the_providers_422), [BOOKING_PERMANENT], []),
    "budget_of_eight_written_in": (routed_with(budget_of_eight), [BOOKING_POISON], []),
    "retries_by_id_alone": (routed_with(retries_by_id_alone), [BOOKING_FENCED], []),
    "reads_the_token_then_deletes_by_id": (reads_the_token_then_deletes_by_id, [BOOKING_FENCED], []),
    "refreshes_its_lease_by_id_before_acking": (refreshes_its_lease_by_id_before_acking,
                                                ["a worker whose lease ran out while its handler ran leaves the job"], []),
}


@pytest.mark.parametrize("name", WRONG_BOOKING_WORKERS)
def test_a_wrong_booking_worker_fails_its_rule(name):
    answer, reasons, may = WRONG_BOOKING_WORKERS[name]
    report = run_check("12.booking_worker", work_one=answer)
    assert fails_exactly(report, reasons, may), report.render()


# -- 12.invoice_worker ------------------------------------------------------------------------------------


def check_then_insert(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))


def lock_but_never_look(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled":
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))


def invoices_the_cancelled(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        if booking is None or stayhub.invoice_exists(conn, booking_id):  # but never looks at the status
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))


@pytest.mark.slow
def test_checking_without_a_lock_lets_two_overlapping_runs_both_invoice():
    report = run_check("12.invoice_worker", render_invoice=check_then_insert, seed=SEED)
    assert_fails_with(report, "two runs at the same moment",
                      "a second run while the first waits at its commit, its lock held: still one invoice")
    # The same race may also show where a killed run's re-run overlaps the killed one's last moments, which a loaded
    # machine makes likelier (CI10): still this answer's missing lock, so allowed, never required.
    allowed = ("two runs at the same moment", "a second run while the first waits at its commit",
               "a run killed after its work is followed by one that does nothing")
    for name in failed(report):
        assert any(fragment in name for fragment in allowed), f"unexpected failure {name!r}:\n{report.render()}"


@pytest.mark.slow
def test_checking_without_a_lock_fails_the_two_workers_on_cue_check_whatever_the_seed():
    """Run 1 is held at its commit (locks held) while run 2 goes: no seed or timing decides the overlap."""
    for seed in (1, 2):
        report = run_check("12.invoice_worker", render_invoice=check_then_insert, seed=seed)
        assert_fails_with(report, "a second run while the first waits at its commit, its lock held")
        assert "run 1 held at its commit, then committed" in report.render(), report.render()


def locks_the_whole_table(job, conn):
    """One invoice each, but every invoice waits for every other: the lock is far wider than the booking."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("LOCK TABLE invoices IN EXCLUSIVE MODE")
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))


def test_a_lock_wider_than_the_booking_makes_other_bookings_wait():
    report = run_check("12.invoice_worker", render_invoice=locks_the_whole_table, seed=SEED)
    assert_passes_except(report, "a run for another booking does not wait for this one")
    assert "run 2 waited for a lock" in report.render()


def locks_for_update(job, conn):
    """The solution with FOR UPDATE: still one invoice each, but the foreign-key check of every row that
    references the booking (the confirmation email's) waits for the whole render."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR UPDATE", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))


def test_a_lock_for_update_blocks_the_rows_that_reference_the_booking():
    report = run_check("12.invoice_worker", render_invoice=locks_for_update, seed=SEED)
    assert failed(report) == ["while a run holds its booking's row, rows that reference the booking can still be "
                              "inserted: FOR NO KEY UPDATE, not FOR UPDATE"], report.render()
    assert "refused: could not obtain lock on row" in report.render()
    assert "Lock with FOR NO KEY UPDATE" in report.render()


@pytest.mark.slow
def test_a_lock_without_the_check_invoices_twice():
    report = run_check("12.invoice_worker", render_invoice=lock_but_never_look, seed=SEED)
    assert_fails_with(report, "two runs at the same moment")


@pytest.mark.slow
def test_a_cancelled_booking_must_not_be_invoiced():
    report = run_check("12.invoice_worker", render_invoice=invoices_the_cancelled, seed=SEED)
    assert_passes_except(report, "a cancelled booking gets no invoice",
                         "another session holds the booking's row while the job runs")


def gives_up_when_the_booking_is_locked(job, conn):
    """Issue 22: SKIP LOCKED on the booking's row: while a support agent's transaction holds it, the run
    finds nothing, returns, and the queue acks the job with no invoice, for ever."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        if conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE SKIP LOCKED",
                        [booking_id]).fetchone() is None:
            return
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))


def nowait_then_returns(job, conn):
    """NOWAIT, and the refusal swallowed: the same lost invoice."""
    booking_id = job.payload["booking_id"]
    try:
        with conn.transaction():
            conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE NOWAIT", [booking_id])
            booking = stayhub.booking(conn, booking_id)
            if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
                return
            stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))
    except psycopg.errors.LockNotAvailable:
        return


def reads_the_status_before_the_lock(job, conn):
    """Looks at the booking first, then locks: after waiting for an agent who cancelled it, it still invoices
    the booking it read before."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled":
            return
        conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id])
        if stayhub.invoice_exists(conn, booking_id):
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))


@pytest.mark.slow
@pytest.mark.parametrize("render_invoice, fails, story", [
    (gives_up_when_the_booking_is_locked, "another session holds the booking's row while the job runs",
     "attempt 1 returned; then 0 invoice(s)"),
    (nowait_then_returns, "another session holds the booking's row while the job runs",
     "attempt 1 returned; then 0 invoice(s)"),
    (reads_the_status_before_the_lock, "another session holds the booking's row while the job runs",
     "waited for the lock, then returned; then 1 invoice(s)"),
], ids=["skip_locked", "nowait", "status_before_lock"])
def test_another_sessions_lock_on_the_booking_is_no_reason_to_lose_the_invoice(render_invoice, fails, story):
    report = run_check("12.invoice_worker", render_invoice=render_invoice, seed=SEED)
    # A run that gives up on a locked row may also lose an invoice in the seeded rounds, when two workers
    # happen to hold one booking at once: the same fault, seen where chance puts it.
    assert fails_exactly(report, [fails], may=["a run killed after its work is followed by one that does nothing",
                                               "two runs at the same moment for one booking"]), report.render()
    assert story in report.render(), report.render()


# -- 12.quiz --------------------------------------------------------------------------------------------------


def test_payment_is_not_a_job():
    report = run_check("12.quiz", q1={"a", "c", "d", "e"}, q2="b", q3="a", q4="b", q5="b", q6="b")
    assert_passes_except(report, "q1:")


# -- 12.invoice_worker: found by the mutation sweep ----------------------------------------------------


def invoices_without_looking_for_the_booking(job, conn):
    """The solution without `booking is None`: a missing booking raises AttributeError, retried 8 times."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        if booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))


def test_an_invoice_job_for_a_missing_booking_must_end_at_once():
    report = run_check("12.invoice_worker", render_invoice=invoices_without_looking_for_the_booking, seed=SEED)
    assert_passes_except(report, "a booking that does not exist ends at once")


# -- 12.invoice_worker: faults placed on purpose first ------------------------------------------------------


def reserves_before_rendering(job, conn):
    """A "started" mark committed before the work: two overlapping runs and a kill after the work are fine,
    but a run killed before its invoice is committed leaves the mark, and every re-run skips the booking."""
    booking_id = job.payload["booking_id"]
    booking = stayhub.booking(conn, booking_id)
    if booking is None or booking.status == "cancelled":
        return
    conn.execute("CREATE TABLE IF NOT EXISTS invoice_started (booking_id bigint PRIMARY KEY)")
    if not conn.execute("INSERT INTO invoice_started VALUES (%s) ON CONFLICT DO NOTHING", [booking_id]).rowcount:
        return  # "another run has it"
    stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_a_mark_committed_before_the_work_fails_at_the_kill_points_whatever_the_seed(seed):
    """The kills before the commit and in the middle of rendering are placed on cue: no seed misses them."""
    report = run_check("12.invoice_worker", render_invoice=reserves_before_rendering, seed=seed)
    assert_fails_with(report, "a worker killed after storing the invoice, before the commit",
                      "a worker killed while rendering the invoice")
    text = report.render()
    assert "the re-run must render the invoice when the first run's work was lost" in text, text
    assert "SIGKILLed in the middle of render_invoice_pdf (killed)" in text, text
    assert f"seed {seed}" in text, text


# -- 12.safe_checkout: the dual write of the charge, and what finishes a crashed checkout --------------------


def confirm(conn, booking_id, payment, *, only_if_pending=True, jobs_in_the_transaction=True):
    """The right last step (the booking confirmed with its jobs, once), or one of two wrong ones."""
    guard = " AND status = 'pending'" if only_if_pending else ""
    with conn.transaction():
        row = conn.execute(f"UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s{guard} "
                           "RETURNING id", [payment.ref, booking_id]).fetchone()
    if row and not jobs_in_the_transaction:
        enqueue_side_jobs(conn, booking_id)  # "the booking is safe now; the jobs can follow"
    elif row:
        with conn.transaction():
            enqueue_side_jobs(conn, booking_id)
    return row


def confirm_with_jobs(conn, booking_id, payment, *, only_if_pending=True):
    guard = " AND status = 'pending'" if only_if_pending else ""
    with conn.transaction():
        if conn.execute(f"UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s{guard} "
                        "RETURNING id", [payment.ref, booking_id]).fetchone():
            enqueue_side_jobs(conn, booking_id)


def reconcile_every_pending(conn, *, keyed=True, only_if_pending=True):
    for booking_id, guest_id, room_id, nights in conn.execute(
            "SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall():
        key = stayhub.checkout_key(booking_id) if keyed else None
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=key)
        confirm_with_jobs(conn, booking_id, payment, only_if_pending=only_if_pending)


def charges_before_the_pending_row(conn, guest_id, room_id, nights):
    """12.checkout's order with a reconcile bolted on: the charge comes first, so a crash after it leaves
    nothing in PostgreSQL for reconcile to find."""
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    confirm_with_jobs(conn, booking_id, payment)
    return booking_id


def pending_row_and_charge_in_one_transaction(conn, guest_id, room_id, nights):
    """"All or nothing": the pending row and the charge in one transaction. A crash before its commit rolls
    the row back, and the card stays authorised."""
    with conn.transaction():
        booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    confirm_with_jobs(conn, booking_id, payment)
    return booking_id


def no_idempotency_key(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    confirm_with_jobs(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights))
    return booking_id


def the_right_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    confirm_with_jobs(conn, booking_id, payment)
    return booking_id


def confirms_whatever_the_status(conn, guest_id, room_id, nights):
    """No `AND status = 'pending'`: a booking reconcile finished meanwhile is confirmed again, with three
    more jobs."""
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    confirm_with_jobs(conn, booking_id, payment, only_if_pending=False)
    return booking_id


def jobs_after_the_confirm_commits(conn, guest_id, room_id, nights):
    """The confirm committed, then the jobs: a crash between them leaves a confirmed booking that nobody
    emails, invoices or syncs (reconcile looks only at pending bookings)."""
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    confirm(conn, booking_id, payment, jobs_in_the_transaction=False)
    return booking_id


def returns_the_payment_too(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    confirm_with_jobs(conn, booking_id, payment)
    return payment


def leaves_it_to_reconcile(conn, guest_id, room_id, nights):
    """"reconcile will finish it": the checkout stops after the charge, and the guest's booking stays
    pending (and emailless) until the next reconcile."""
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    return booking_id


def reconciles_only_old_bookings(conn):
    """"A pending booking under a minute old is a checkout still running": so a crash leaves it pending
    after this reconcile."""
    for booking_id, guest_id, room_id, nights in conn.execute(
            "SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' "
            "AND created_at < now() - interval '1 minute'").fetchall():
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
        confirm_with_jobs(conn, booking_id, payment)


def reconcile_stops_at_a_confirmed_booking(conn):
    """Raises when a booking it meant to finish was confirmed meanwhile (by the checkout itself)."""
    for booking_id, guest_id, room_id, nights in conn.execute(
            "SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' ORDER BY id").fetchall():
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
        with conn.transaction():
            if conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s "
                            "AND status = 'pending' RETURNING id", [payment.ref, booking_id]).fetchone() is None:
                raise RuntimeError(f"booking {booking_id} is not pending any more")
            enqueue_side_jobs(conn, booking_id)


def reconcile_without_the_key(conn):
    reconcile_every_pending(conn, keyed=False)


def reconcile_locking_each(conn):
    """Once the authors' correct answer, wrong by the lead's decision (the rule is the checkout's and
    reconcile's): each pending booking locked FOR UPDATE SKIP LOCKED and charged inside that transaction,
    its row lock held across the provider's 300 ms."""
    for (booking_id,) in conn.execute("SELECT id FROM bookings WHERE status = 'pending' ORDER BY id DESC").fetchall():
        with conn.transaction():
            row = conn.execute("SELECT guest_id, room_id, nights FROM bookings WHERE id = %s AND status = 'pending' "
                               "FOR UPDATE SKIP LOCKED", [booking_id]).fetchone()
            if row is None:
                continue
            payment = stayhub.charge(conn, *row, idempotency_key=stayhub.checkout_key(booking_id))
            confirm_with_jobs(conn, booking_id, payment)


def reconcile_in_one_transaction(conn):
    """Red teams red12 (w15, then judged correct) and red12c (w07): every pending booking locked at once,
    each charged and confirmed, one commit at the end: every lock held across every charge."""
    with conn.transaction():
        rows = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' "
                            "FOR UPDATE SKIP LOCKED").fetchall()
        for booking_id, guest_id, room_id, nights in rows:
            payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
            confirm_with_jobs(conn, booking_id, payment)


def reconcile_gives_up_when_someone_else_finished(conn):
    """Red team red12c (w13): stops at the first booking whose confirm changed nothing ('the rest are being
    finished by their checkouts'), leaving every later pending booking pending."""
    for booking_id, guest_id, room_id, nights in conn.execute(
            "SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' ORDER BY id").fetchall():
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
        with conn.transaction():
            if conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s "
                            "AND status = 'pending' RETURNING id", [payment.ref, booking_id]).fetchone() is None:
                break
            enqueue_side_jobs(conn, booking_id)


def confirms_while_payment_ref_is_null(conn, guest_id, room_id, nights):
    """Blind round f3 (n4): "still pending" written as payment_ref IS NULL, which a booking cancelled before
    its charge has too: reconcile charges it and confirms it."""
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    confirm_unless_paid(conn, booking_id, payment)
    return booking_id


def confirm_unless_paid(conn, booking_id, payment):
    with conn.transaction():
        if conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s "
                        "AND payment_ref IS NULL RETURNING id", [payment.ref, booking_id]).fetchone():
            enqueue_side_jobs(conn, booking_id)


def reconcile_every_unpaid(conn):
    for booking_id, guest_id, room_id, nights in conn.execute(
            "SELECT id, guest_id, room_id, nights FROM bookings WHERE payment_ref IS NULL").fetchall():
        confirm_unless_paid(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights,
                                                             idempotency_key=stayhub.checkout_key(booking_id)))


def reconcile_every_unconfirmed(conn):
    """Blind round f3 (z4): every booking not confirmed, the cancelled ones too: their guests' cards are
    authorised again (the confirm, only if pending, then leaves them cancelled)."""
    for booking_id, guest_id, room_id, nights in conn.execute(
            "SELECT id, guest_id, room_id, nights FROM bookings WHERE status <> 'confirmed'").fetchall():
        payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
        stayhub.finish_pending(conn, booking_id, payment)


def none_when_reconcile_finished_first(conn, guest_id, room_id, nights):
    """Blind round f4 (f4b12, w_none_if_lost_race): returns None when reconcile confirmed the booking first,
    its id otherwise (return-id: safe_checkout returns the booking's id, whoever finished it)."""
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    finished = stayhub.finish_pending(conn, booking_id, payment)
    return booking_id if finished else None


WRONG_SAFE_CHECKOUTS = {  # checkout, reconcile, the checks it must fail, the checks it may fail too
    "charges_before_the_pending_row": (charges_before_the_pending_row, reconcile_every_pending,
                                       ["a crash at any statement, then reconcile: every card charged"],
                                       # its charge cannot carry the booking's key: reconcile charges again
                                       ["never a card charged twice for one booking"]),
    "pending_row_and_charge_in_one_transaction": (
        pending_row_and_charge_in_one_transaction, reconcile_every_pending,
        ["the checkout and reconcile charge the card with no transaction open",
         "a crash at any statement, then reconcile: every card charged"], []),
    "no_idempotency_key": (no_idempotency_key, reconcile_without_the_key,
                           ["never a card charged twice for one booking"], []),
    "confirms_whatever_the_status": (confirms_whatever_the_status, reconcile_every_pending,
                                     ["each confirmed booking gets its three jobs once"], []),
    "jobs_after_the_confirm_commits": (jobs_after_the_confirm_commits, reconcile_every_pending,
                                       ["each confirmed booking gets its three jobs once"], []),
    "reconciles_only_old_bookings": (the_right_checkout, reconciles_only_old_bookings,
                                     ["after reconcile no booking is left pending"], []),
    "reconcile_stops_at_a_confirmed_booking": (the_right_checkout, reconcile_stops_at_a_confirmed_booking,
                                               ["reconcile returns normally"], []),
    "returns_the_payment": (returns_the_payment_too, reconcile_every_pending,
                            ["returns the new booking's id, confirmed with its three jobs"], []),
    "leaves_it_to_reconcile": (leaves_it_to_reconcile, reconcile_every_pending,
                               ["returns the new booking's id, confirmed with its three jobs"],
                               ["after reconcile no booking is left pending", "the same bookings as the reference"]),
    "reconcile_locking_each": (the_right_checkout, reconcile_locking_each,
                               ["the checkout and reconcile charge the card with no transaction open"], []),
    "reconcile_in_one_transaction": (the_right_checkout, reconcile_in_one_transaction,
                                     ["the checkout and reconcile charge the card with no transaction open"], []),
    "reconcile_gives_up_when_someone_else_finished": (the_right_checkout, reconcile_gives_up_when_someone_else_finished,
                                                      ["after reconcile no booking is left pending"], []),
    "guards_on_payment_ref_not_status": (confirms_while_payment_ref_is_null, reconcile_every_unpaid,
                                         ["a booking cancelled before its charge stays cancelled"], []),
    "reconciles_every_unconfirmed_booking": (the_right_checkout, reconcile_every_unconfirmed,
                                             ["a booking cancelled before its charge stays cancelled"], []),
    "returns_none_when_reconcile_finished_first": (none_when_reconcile_finished_first, reconcile_every_pending,
                                                   ["returns the new booking's id, confirmed with its three jobs"], []),
}


@pytest.mark.parametrize("case", WRONG_SAFE_CHECKOUTS)
def test_a_safe_checkout_wrong_answer_fails_its_rule(case):
    checkout, reconcile, reasons, may = WRONG_SAFE_CHECKOUTS[case]
    report = run_check("12.safe_checkout", safe_checkout=checkout, reconcile=reconcile)
    assert fails_exactly(report, reasons, may), report.render()


def test_a_safe_checkout_failure_names_the_story_and_replays_with_its_seed():
    report = run_check("12.safe_checkout", safe_checkout=no_idempotency_key, reconcile=reconcile_without_the_key,
                       seed=5)
    text = report.render()
    assert "the process dies before its statement" in text and "idempotency_key=stayhub.checkout_key" in text, text
    assert "check('12.safe_checkout', seed=5)" in text, text


# -- 12.safe_checkout: a red-team round written from the notebook's statement (no helper team could be
#    started): each breaks one rule the statement states ---------------------------------------------------


def confirms_in_autocommit_statements(conn, guest_id, room_id, nights):
    """The confirm and the jobs as separate autocommit statements: a crash between them leaves a confirmed
    booking with fewer than three jobs, which reconcile (it looks at pending bookings) never completes."""
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    if conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s AND status = 'pending' "
                    "RETURNING id", [payment.ref, booking_id]).fetchone():
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return booking_id


def reconcile_voids_what_it_finds(conn):
    """"A pending booking is a failed checkout": cancel it. The cards already authorised stay charged."""
    conn.execute("UPDATE bookings SET status = 'cancelled' WHERE status = 'pending'")


def reconcile_ten_at_a_time(conn):
    """A batch of ten per run: more than ten left pending, and the rest wait for the next run."""
    for booking_id, guest_id, room_id, nights in conn.execute(
            "SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' ORDER BY id LIMIT 10").fetchall():
        confirm_with_jobs(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights,
                                                           idempotency_key=stayhub.checkout_key(booking_id)))


def reconcile_with_its_own_key(conn):
    """A key of reconcile's own: the provider cannot tell it is the checkout's charge again."""
    for booking_id, guest_id, room_id, nights in conn.execute(
            "SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall():
        confirm_with_jobs(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights,
                                                           idempotency_key=f"reconcile:{booking_id}"))


RED_TEAM_SAFE_CHECKOUTS = {  # checkout, reconcile, the checks it must fail, the checks it may fail too
    "confirms_in_autocommit_statements": (confirms_in_autocommit_statements, reconcile_every_pending,
                                          ["each confirmed booking gets its three jobs once"], []),
    "reconcile_voids_what_it_finds": (the_right_checkout, reconcile_voids_what_it_finds,
                                      ["a crash at any statement, then reconcile: every card charged"],
                                      ["each confirmed booking gets its three jobs once"]),
    "reconcile_ten_at_a_time": (the_right_checkout, reconcile_ten_at_a_time,
                                ["after reconcile no booking is left pending"], []),
    "reconcile_with_its_own_key": (the_right_checkout, reconcile_with_its_own_key,
                                   ["never a card charged twice for one booking"], []),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", RED_TEAM_SAFE_CHECKOUTS)
def test_a_red_team_safe_checkout_fails_the_rule_it_breaks(case):
    checkout, reconcile, reasons, may = RED_TEAM_SAFE_CHECKOUTS[case]
    report = run_check("12.safe_checkout", safe_checkout=checkout, reconcile=reconcile)
    assert fails_exactly(report, reasons, may), report.render()


# -- 12.safe_checkout across the grading boundary: the way `course check` and `course grade` run it -----------

READ_THEN_WRITE = '''
def finish(conn, booking_id, payment):
    with conn.transaction():
        status = conn.execute("SELECT status FROM bookings WHERE id = %s", [booking_id]).fetchone()[0]
        if status != "pending":
            return False
        conn.execute("UPDATE bookings SET status = 'confirmed', payment_ref = %s WHERE id = %s",
                     [payment.ref, booking_id])
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return True


def safe_checkout(conn, guest_id, room_id, nights):
    booking_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    payment = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(booking_id))
    finish(conn, booking_id, payment)
    return booking_id


def reconcile(conn):
    rows = conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall()
    for booking_id, guest_id, room_id, nights in rows:
        finish(conn, booking_id, stayhub.charge(conn, guest_id, room_id, nights,
                                                idempotency_key=stayhub.checkout_key(booking_id)))
'''


@pytest.mark.slow
def test_a_confirm_that_reads_then_writes_is_caught_across_the_grading_boundary():
    """Red team (issue 22): through the boundary, the check's connection (faults/boundaries.Watched) is lent
    to the answer's process. Its reconcile between the checkout's statements must really run between them
    (it waited for the lender's lock at the first boundary until the hang bound, and ran after), so a
    confirm that reads the status, then writes, confirms twice with two sets of jobs."""
    import socket

    from course.grading.boundary.host import AnswerSide
    from course.grading.boundary.serving import TrustedSide
    from course.grading.boundary.trusted import AnswerHost
    from course.grading.boundary.wire import Channel

    class Running:
        pid = 0

        def poll(self):
            return None

    ours, theirs = socket.socketpair()
    answer_side = AnswerSide(Channel(theirs))
    answer_side.peer.start()
    trusted = TrustedSide(Channel(ours))
    try:
        host = AnswerHost(Running(), trusted)
        host.setup("12_capstone_stayhub.ipynb", ["from course.core import queue\nfrom course.programs import stayhub"])
        answers = host.exercise("12.safe_checkout", READ_THEN_WRITE, ["safe_checkout", "reconcile"])
        report = run_check("12.safe_checkout", **answers)
    finally:
        trusted.peer.close()
        answer_side.peer.close()
    assert_passes_except(report, "each confirmed booking gets its three jobs once")


# -- a stub scores nothing it did not show ---------------------------------------------------------------------


@pytest.mark.parametrize("exercise, answers", [("12.safe_checkout", ("safe_checkout", "reconcile")),
                                               ("12.booking_worker", ("work_one",))])
def test_a_stub_returning_none_passes_no_check_after_its_first_failure(exercise, answers):
    """Both checks stop at the first story that breaks a rule; the rules after it were never judged. They used
    to be shown passed: a `return None` stub scored 7 of 8 on 12.safe_checkout and 8 of 9 on 12.booking_worker
    in class grading."""
    report = run_check(exercise, seed=1, **{name: (lambda *args, **kwargs: None) for name in answers})
    names = [r.name for r in report.results]
    first = min(i for i, r in enumerate(report.results) if r.reached and not r.passed)
    assert not any(r.passed for r in report.results[first:]), report.render()
    assert all(not r.reached for r in report.results[first + 1:]) and first + 1 < len(names), report.render()


@pytest.mark.slow
@pytest.mark.parametrize("exercise, answers", [("12.checkout", ("checkout",)),
                                               ("12.safe_checkout", ("safe_checkout", "reconcile")),
                                               ("12.booking_worker", ("work_one",)),
                                               ("12.invoice_worker", ("render_invoice",))])
def test_a_do_nothing_stub_scores_nothing(exercise, answers):
    """Round f2: a stub that does nothing scored 2 of 9 on 12.booking_worker (it never called its handler, so
    never inside a transaction; it never claimed, so never returned a wrong id) and 5 of 14 on
    12.invoice_worker (nothing raised, nothing stored twice, nothing for a cancelled booking, the queue
    emptied). Such rows are not judged until the answer has shown the effect they are about."""
    report = run_check(exercise, seed=1, **{name: (lambda *args, **kwargs: None) for name in answers})
    assert not any(r.passed for r in report.results), report.render()
    if exercise == "12.invoice_worker":
        unjudged = [r for r in report.results if not r.reached]
        assert unjudged and all("never stored an invoice" in r.note for r in unjudged), report.render()
