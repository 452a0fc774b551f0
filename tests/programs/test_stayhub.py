"""StayHub, the capstone's system: its tables and steps, its three job handlers (run twice on purpose), the
channel-manager partner, the booking API in all three modes and the worker program, as real processes.

Every process a test starts is killed at the end of the test, also when it fails. Durations are only
ever checked from below (a sleep is at least as long as asked): a loaded machine is slow, never fast."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from course.infra import db
from course.core import queue
from course.errors import CourseError, InvalidArgument
from course.infra.processes import wait_until
from course.core.queue import PermanentError
from course.programs import booking_api, channel_manager, stayhub
from course.programs.email_provider import EmailProvider, send_email

GENEROUS_S = 30


@pytest.fixture
def hub(conn):
    """The test's schema with StayHub's tables and demo data."""
    stayhub.install(conn)
    return conn


@pytest.fixture
def provider():
    started = EmailProvider.start(latency_s=0.0)
    yield started
    started.kill()


@pytest.fixture
def partner():
    started = channel_manager.ChannelManager.start(latency_s=0.05, jitter_s=0.0, timeout_rate=0.0)
    yield started
    started.kill()


@pytest.fixture
def fast_invoices(monkeypatch):
    monkeypatch.setenv(stayhub.INVOICE_S_ENV, "0.05")  # child processes inherit it


def a_booking(conn, guest_id=1, status="confirmed") -> int:
    payment = stayhub.Payment("auth_test", 29_000)
    booking_id = stayhub.insert_booking(conn, guest_id, 1, 2, payment)
    if status == "cancelled":
        stayhub.cancel(conn, booking_id)
    return booking_id


def job(booking_id, attempts=1):
    return SimpleNamespace(id=1, payload={"booking_id": booking_id}, attempts=attempts)


# -- tables and steps ------------------------------------------------------------------------------------


def test_install_twice_adds_the_demo_data_once(hub):
    stayhub.install(hub)
    assert hub.execute("SELECT count(*) FROM guests").fetchone()[0] == 4
    assert hub.execute("SELECT email FROM guests WHERE id = 4").fetchone()[0].endswith(".invalid")


def test_a_booking_and_its_jobs_roll_back_together(hub):
    with pytest.raises(RuntimeError):
        with hub.transaction():
            booking_id = a_booking(hub)
            queue.enqueue(hub, "send_confirmation_email", {"booking_id": booking_id})
            raise RuntimeError("the process died here")
    assert hub.execute("SELECT (SELECT count(*) FROM bookings), (SELECT count(*) FROM jobs)").fetchone() == (0, 0)


def test_charge_takes_the_payment_time_and_prices_the_stay(hub):
    import time

    started = time.monotonic()
    payment = stayhub.charge(hub, 1, 1, 3)
    assert time.monotonic() - started >= stayhub.PAYMENT_S
    assert payment.total_cents == 3 * 14_500 and payment.ref.startswith("auth_")
    with pytest.raises(InvalidArgument, match="no room 9"):
        stayhub.charge(hub, 1, 9, 1)


def test_the_first_booking_is_981_and_reads_back_whole(hub):
    booking_id = a_booking(hub)
    assert booking_id == 981
    b = stayhub.booking(hub, booking_id)
    assert (b.guest_email, b.hotel, b.status, b.nights) == ("priya@example.com", "Casa do Rio", "confirmed", 2)
    assert stayhub.booking(hub, 12345) is None
    with pytest.raises(InvalidArgument, match="payment must be"):
        stayhub.insert_booking(hub, 1, 1, 2, "a card")


def test_the_confirmation_email_names_the_booking_and_is_counted_back(hub):
    email = stayhub.confirmation_email(stayhub.booking(hub, a_booking(hub)))
    assert email.to == "priya@example.com" and "#981" in email.subject
    deliveries = [{"subject": email.subject}, {"subject": email.subject}, {"subject": "something else"}]
    assert stayhub.emails_by_booking(deliveries) == {981: 2}


def test_the_invoice_is_a_real_pdf_and_the_same_booking_gives_the_same_bytes(hub):
    b = stayhub.booking(hub, a_booking(hub))
    pdf = stayhub.invoice_pdf(b)
    assert pdf.startswith(b"%PDF") and pdf == stayhub.invoice_pdf(b)
    number = stayhub.store_invoice(hub, b.id, pdf)
    assert number == 20261001 and stayhub.invoice_exists(hub, b.id)
    with pytest.raises(InvalidArgument, match="PDF"):
        stayhub.store_invoice(hub, b.id, b"not a pdf")


# -- the handlers, run twice --------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_confirmation_handler_sends_once_however_often_it_runs(hub, provider, monkeypatch):
    monkeypatch.setenv(stayhub.PROVIDER_URL_ENV, provider.url)
    booking_id = a_booking(hub)
    stayhub.send_confirmation_email(job(booking_id), hub)
    stayhub.send_confirmation_email(job(booking_id, attempts=2), hub)
    assert stayhub.emails_by_booking(provider.deliveries()) == {booking_id: 1}
    assert hub.execute("SELECT message_id FROM confirmations").fetchone()[0].startswith("msg_")


@pytest.mark.slow
def test_a_crash_after_the_provider_accepted_is_covered_by_the_idempotency_key(hub, provider, monkeypatch):
    monkeypatch.setenv(stayhub.PROVIDER_URL_ENV, provider.url)
    booking_id = a_booking(hub)
    email = stayhub.confirmation_email(stayhub.booking(hub, booking_id))
    # The first run got this far, then died before its transaction committed: no confirmations row.
    send_email(provider.url, email.to, email.subject, email.body, idempotency_key=stayhub.confirmation_key(booking_id))
    stayhub.send_confirmation_email(job(booking_id, attempts=2), hub)
    assert stayhub.emails_by_booking(provider.deliveries()) == {booking_id: 1}
    assert [r.outcome for r in provider.requests()] == ["delivered", "replayed"]


@pytest.mark.slow
def test_an_impossible_address_is_a_permanent_error_and_a_cancelled_booking_gets_nothing(hub, provider, monkeypatch):
    monkeypatch.setenv(stayhub.PROVIDER_URL_ENV, provider.url)
    with pytest.raises(PermanentError):
        stayhub.send_confirmation_email(job(a_booking(hub, guest_id=4)), hub)
    stayhub.send_confirmation_email(job(a_booking(hub, status="cancelled")), hub)
    with pytest.raises(PermanentError, match="does not exist"):
        stayhub.send_confirmation_email(job(999_999), hub)
    assert provider.deliveries() == []
    assert hub.execute("SELECT count(*) FROM confirmations").fetchone()[0] == 0  # the failed send rolled back


def test_the_invoice_handler_makes_one_invoice_and_none_for_a_cancelled_booking(hub, fast_invoices):
    confirmed, cancelled = a_booking(hub), a_booking(hub, status="cancelled")
    for attempts in (1, 2):
        stayhub.render_invoice(job(confirmed, attempts), hub)
        stayhub.render_invoice(job(cancelled, attempts), hub)
    assert stayhub.invoices_by_booking(hub) == {confirmed: 1}


def test_the_invoice_lock_does_not_make_other_jobs_wait(hub, schema, fast_invoices, monkeypatch):
    """FOR NO KEY UPDATE: a row that references the booking can be inserted while the invoice renders."""
    import threading

    monkeypatch.setenv(stayhub.INVOICE_S_ENV, "1.0")
    booking_id = a_booking(hub)
    renderer, other = db.connect(schema), db.connect(schema)
    rendering = threading.Thread(target=lambda: stayhub.render_invoice(job(booking_id), renderer))
    rendering.start()
    try:
        wait_until(lambda: hub.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' "
                                       "AND pid = %s", [renderer.info.backend_pid]).fetchone()[0], timeout=GENEROUS_S,
                   what="the invoice job holding its lock")
        other.execute("SET lock_timeout = '300ms'")
        other.execute("INSERT INTO confirmations (key, booking_id) VALUES ('k', %s)", [booking_id])  # no wait
    finally:
        rendering.join()
        renderer.close()
        other.close()


@pytest.mark.slow
def test_the_sync_handler_tells_the_partner_and_records_it(hub, partner, monkeypatch):
    monkeypatch.setenv(stayhub.CHANNEL_MANAGER_URL_ENV, partner.url)
    booking_id = a_booking(hub)
    stayhub.sync_channel_manager(job(booking_id), hub)
    stayhub.sync_channel_manager(job(booking_id, 2), hub)  # a PUT: twice is fine
    assert [s["booking_id"] for s in partner.syncs()] == [booking_id, booking_id]
    assert hub.execute("SELECT count(*) FROM channel_syncs").fetchone()[0] == 1


@pytest.mark.slow
def test_a_partner_that_sits_on_the_request_is_a_timeout_and_still_takes_the_update(hub, started):
    slow = channel_manager.ChannelManager.start(latency_s=0.0, timeout_rate=1.0, hang_s=1.0)
    started.append(slow)
    b = stayhub.booking(hub, a_booking(hub))
    with pytest.raises(stayhub.ChannelManagerTimeout):
        stayhub.push_to_channel_manager(slow.url, b, timeout=0.2)
    wait_until(lambda: slow.syncs(), timeout=GENEROUS_S, what="the late update")


# -- the processes: workers and the booking API --------------------------------------------------------------


@pytest.mark.slow
def test_workers_run_the_three_jobs_of_a_booking(hub, schema, provider, partner, started, fast_invoices):
    workers = [stayhub.spawn_worker(schema, provider_url=provider.url, channel_manager_url=partner.url,
                                    name=f"test-stayhub-worker{n}") for n in range(2)]
    started.extend(workers)
    stayhub.wait_until_ready(hub, workers, timeout=GENEROUS_S)
    booking_id = stayhub.checkout_with_jobs(hub, 2, 3, 1)
    wait_until(lambda: not queue.stats(hub).depth, timeout=GENEROUS_S, what="the three jobs done")
    assert stayhub.emails_by_booking(provider.deliveries()) == {booking_id: 1}
    assert stayhub.invoices_by_booking(hub) == {booking_id: 1}
    assert [s["booking_id"] for s in partner.syncs()] == [booking_id]


@pytest.mark.slow
def test_scaled_backoff_reaches_the_dead_letter_table_after_eight_quick_attempts(hub, schema, provider, started):
    provider.configure(down=True)
    worker = stayhub.spawn_worker(schema, provider_url=provider.url, backoff_scale=0.01, poll_interval_s=0.05,
                                  name="test-stayhub-fast")
    started.append(worker)
    booking_id = a_booking(hub)
    queue.enqueue(hub, "send_confirmation_email", {"booking_id": booking_id})
    wait_until(lambda: queue.dead_jobs(hub), timeout=GENEROUS_S, what="the dead letter")
    [dead] = queue.dead_jobs(hub)
    assert (dead.attempts, dead.reason) == (8, "max_attempts")
    assert len(provider.requests()) == 8


@pytest.mark.slow
def test_a_worker_that_cannot_start_is_reported_with_its_log(hub, started):
    with pytest.raises(InvalidArgument):
        stayhub.spawn_worker("x", provider_url="http://127.0.0.1:9", backoff_scale=0)
    from course.infra import processes

    broken = processes.python("test-stayhub-broken", "course.programs.stayhub", "worker", "--dsn",
                              "host=/nonexistent dbname=none")
    started.append(broken)
    with pytest.raises(CourseError, match="exited"):
        stayhub.wait_until_ready(hub, [broken], timeout=GENEROUS_S)


@pytest.mark.slow
def test_the_inline_api_answers_after_every_step_and_fails_a_paid_booking_when_the_email_fails(
        hub, schema, provider, partner, started, fast_invoices):
    api = booking_api.BookingApi.start(schema=schema, mode="inline", provider_url=provider.url,
                                   channel_manager_url=partner.url, install=False)
    started.append(api)
    reply = api.book(1, 1, 2)
    assert reply.ok and list(reply.timings) == ["payment and insert", "email", "invoice PDF", "channel manager"]
    assert reply.seconds >= stayhub.PAYMENT_S + stayhub.INSERT_S
    provider.configure(down=True)
    failed = api.book(2, 1, 2)
    assert failed.status == 502 and "email failed after booking" in failed.error
    assert stayhub.booking(hub, failed.booking_id).status == "confirmed"  # stored and paid, error page anyway


@pytest.mark.slow
def test_the_api_runs_a_checkout_function_it_is_given(hub, schema, started):
    def checkout(conn, guest_id, room_id, nights):
        return stayhub.checkout_with_jobs(conn, guest_id, room_id, nights)

    api = booking_api.BookingApi.start(schema=schema, checkout=checkout, install=False, name="test-api-custom")
    started.append(api)
    reply = api.book(3, 2, 1)
    assert reply.ok and hub.execute("SELECT count(*) FROM jobs").fetchone()[0] == 3
    assert api.book(3, 99, 1).status == 422  # the function's InvalidArgument, as the guest's mistake


@pytest.mark.slow
def test_the_api_says_so_when_a_checkout_returns_no_booking_id(hub, schema, started):
    api = booking_api.BookingApi.start(schema=schema, checkout=lambda conn, g, r, n: "ok", install=False,
                                   name="test-api-bad")
    started.append(api)
    reply = api.book()
    assert reply.status == 500 and "not a booking id" in reply.error


def test_inline_mode_needs_the_provider_and_the_partner(schema):
    with pytest.raises(InvalidArgument, match="provider_url"):
        booking_api.BookingApi.start(schema=schema, mode="inline")
