"""The programs the labs run, as real processes: the email provider and Tiffin's checkout app.

Every server and worker a test starts is killed at the end of the test, also when it fails (fixtures).
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from course.infra import db
from course.errors import CourseError, InvalidArgument
from course.infra.processes import wait_until
from course.core.queue import PermanentError
from course.programs import tiffin
from course.programs.checkout import CheckoutApp
from course.programs.email_provider import (
    EmailProvider,
    EmailRejected,
    ProviderTimeout,
    ProviderUnavailable,
    ProviderUnreachable,
    TransientEmailError,
    send_email,
)
from course.programs.http import call

pytestmark = pytest.mark.slow  # every test here starts worker processes or servers

TIFFIN_HANDLERS = "course.programs.tiffin:handlers"
GENEROUS_S = 30  # a loaded 2-core machine may be slow; nothing here should take this long


@pytest.fixture
def provider():
    started = EmailProvider.start(latency_s=0.0, seed=1)
    yield started
    started.kill()


@pytest.fixture
def tiffin_schema(schema) -> str:
    """The test's schema (queue tables already there) with Tiffin's tables and customers 1 to 5."""
    with db.connect(schema) as conn:
        tiffin.install(conn)
    return schema


@pytest.fixture
def start_checkout(tiffin_schema, provider, started):
    """start_checkout(mode, **options) -> CheckoutApp; every one is stopped at the end of the test."""
    def start(mode: str, **options) -> CheckoutApp:
        app = CheckoutApp.start(schema=tiffin_schema, provider_url=provider.url, mode=mode, install=False,
                                **options)
        started.append(app)
        return app

    return start


def receipt_worker_env(provider) -> dict[str, str]:
    return {tiffin.PROVIDER_URL_ENV: provider.url, tiffin.RENDER_S_ENV: "0"}


def send(provider, to="ana@example.com", subject="Your receipt", body="Total: 12.50", key=None, **options):
    return send_email(provider.url, to, subject, body, idempotency_key=key, **options)


# -- the email provider ----------------------------------------------------------------------------


def test_an_accepted_email_is_delivered_and_every_request_counted(provider):
    message_id = send(provider, key="receipt:9812")

    [delivery] = provider.deliveries()
    assert (delivery.id, delivery.to, delivery.subject, delivery.body, delivery.idempotency_key) == (
        message_id, "ana@example.com", "Your receipt", "Total: 12.50", "receipt:9812")
    assert [r.outcome for r in provider.requests()] == ["delivered"]
    provider.reset()
    assert provider.deliveries() == [] and provider.stats()["requests"] == 0


def test_a_client_that_stops_waiting_does_not_stop_the_delivery(provider):
    provider.configure(latency_s=2.0)

    with pytest.raises(ProviderTimeout) as timed_out:
        send(provider, timeout=0.2)

    assert isinstance(timed_out.value, TransientEmailError)
    # A timeout says nothing about whether the email went: here it did, a moment later.
    wait_until(provider.deliveries, GENEROUS_S, what="the timed-out email delivered anyway")


def test_random_failures_are_transient_and_repeat_with_the_seed(provider):
    provider.configure(failure_rate=0.5, seed=7)

    def outcomes() -> list[bool]:
        accepted = []
        for n in range(16):
            try:
                send(provider, subject=f"email {n}")
                accepted.append(True)
            except ProviderUnavailable as error:
                assert error.status == 503
                accepted.append(False)
        return accepted

    first = outcomes()
    assert True in first and False in first
    assert len(provider.requests()) == 16  # failed requests are counted too
    assert len(provider.deliveries()) == first.count(True)
    provider.reset()  # forgets, and restarts the random sequence from the seed
    assert outcomes() == first


def test_an_outage_answers_503_until_it_ends(provider):
    provider.configure(down=True)
    with pytest.raises(ProviderUnavailable):
        send(provider)
    provider.configure(down=False)
    send(provider)

    provider.outage(600)
    with pytest.raises(ProviderUnavailable) as during_window:
        send(provider)
    assert during_window.value.retry_after_s > 0
    provider.outage(600, starting_in=3600)  # a window in the future: up now
    send(provider)

    assert provider.stats()["by_outcome"] == {"down": 2, "delivered": 2}
    assert len(provider.deliveries()) == 2


@pytest.mark.parametrize("address", ["nobody@invalid", "ana@mail.invalid", "no-at-sign.example.com"])
def test_an_impossible_address_is_rejected_for_good(provider, address):
    with pytest.raises(EmailRejected) as rejected:
        send(provider, to=address)

    assert isinstance(rejected.value, PermanentError)  # the worker dead-letters it without retrying
    assert rejected.value.status == 422 and address in str(rejected.value)
    assert provider.deliveries() == []


def test_a_malformed_request_is_refused_with_a_reason(provider):
    reply = call("POST", f"{provider.url}/emails", {"to": "ana@example.com", "body": "no subject"})

    assert reply.status == 400 and "subject" in reply.error
    assert [r.outcome for r in provider.requests()] == ["bad_request"]


def test_the_same_idempotency_key_delivers_once(provider):
    first = send(provider, key="receipt:9812")
    again = send(provider, key="receipt:9812")

    assert again == first and len(provider.deliveries()) == 1
    assert [r.outcome for r in provider.requests()] == ["delivered", "replayed"]
    with pytest.raises(EmailRejected) as reused:
        send(provider, key="receipt:9812", subject="a different email")
    assert reused.value.status == 409


def test_a_failed_attempt_does_not_use_up_the_key(provider):
    provider.configure(down=True)
    with pytest.raises(ProviderUnavailable):
        send(provider, key="receipt:9813")
    provider.configure(down=False)

    send(provider, key="receipt:9813")

    assert len(provider.deliveries()) == 1


def test_two_sends_with_one_key_at_the_same_moment_deliver_once(provider):
    provider.configure(latency_s=0.3)  # both requests are inside the provider at the same time
    ids = []
    senders = [threading.Thread(target=lambda: ids.append(send(provider, key="receipt:9814"))) for _ in range(2)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join(GENEROUS_S)

    assert len(ids) == 2 and ids[0] == ids[1]
    assert len(provider.deliveries()) == 1


def test_bad_settings_are_refused_and_change_nothing(provider):
    before = provider.settings()
    with pytest.raises(InvalidArgument, match="failure_rate"):
        provider.configure(failure_rate=2)
    with pytest.raises(InvalidArgument, match="latncy_s"):
        provider.configure(latncy_s=1)
    assert provider.settings() == before
    with pytest.raises(InvalidArgument, match="latency_s"):
        EmailProvider.start(latency_s=-1)


def test_sigterm_lets_the_requests_in_flight_finish(provider):
    provider.configure(latency_s=2.0)
    answers = []
    sender = threading.Thread(target=lambda: answers.append(send(provider)))
    sender.start()
    wait_until(lambda: provider.health()["requests_in_flight"] == 1, GENEROUS_S, what="a send in flight")

    assert provider.terminate() == 0
    sender.join(GENEROUS_S)

    assert answers == ["msg_000001"]  # answered before the provider exited, not cut off


def test_a_provider_that_is_gone_is_a_transient_error(provider):
    provider.kill()

    with pytest.raises(ProviderUnreachable) as unreachable:
        send(provider)

    assert isinstance(unreachable.value, TransientEmailError)


# -- the checkout app --------------------------------------------------------------------------------


def place_orders(app: CheckoutApp, count: int) -> list[int]:
    return [app.place_order(1 + n % 5, total_cents=1000 + n)["id"] for n in range(count)]


def test_thread_mode_sends_receipts_while_nothing_goes_wrong(start_checkout, provider):
    app = start_checkout("thread", receipt_render_s=0)

    order_ids = place_orders(app, 3)

    every_receipt_once = Counter(order_ids)
    wait_until(lambda: tiffin.receipts_by_order(provider.deliveries()) == every_receipt_once, GENEROUS_S,
               what="a receipt for each order")


@pytest.mark.parametrize("stop", ["kill", "terminate"])
def test_thread_mode_loses_the_receipts_in_flight_when_the_process_ends(start_checkout, provider, tiffin_schema,
                                                                         stop):
    # Rendering takes a minute here, so every receipt is still in its thread when the process ends.
    app = start_checkout("thread", receipt_render_s=60)
    order_ids = place_orders(app, 5)

    exit_code = getattr(app, stop)()

    # SIGTERM is graceful: no request was in flight, so it exits at once, without waiting for receipts.
    assert exit_code == (0 if stop == "terminate" else -9)
    with db.connect(tiffin_schema) as conn:
        # Every customer was told "order placed", and not one receipt reached the provider.
        assert tiffin.orders_without_a_receipt(conn, provider.deliveries()) == order_ids
    assert provider.requests() == []


def test_queue_mode_stores_a_job_with_every_order_and_a_worker_sends_each_receipt_once(
        start_checkout, start_workers, provider, conn):
    app = start_checkout("queue")
    order_ids = place_orders(app, 4)
    with pytest.raises(InvalidArgument, match="no customer 999"):
        app.place_order(999, total_cents=500)  # refused: neither an order nor a job is stored

    jobs = conn.execute("SELECT type, payload FROM jobs ORDER BY id").fetchall()
    assert jobs == [("send_receipt", {"order_id": order_id}) for order_id in order_ids]
    app.kill()  # the jobs are in the database: the app's death loses nothing now

    start_workers(1, app=TIFFIN_HANDLERS, lease_s=5, env=receipt_worker_env(provider))

    every_receipt_once = Counter(order_ids)
    wait_until(lambda: tiffin.receipts_by_order(provider.deliveries()) == every_receipt_once, GENEROUS_S,
               what="a receipt for each order")
    assert {d.idempotency_key for d in provider.deliveries()} == {tiffin.receipt_key(i) for i in order_ids}
    wait_until(lambda: conn.execute("SELECT count(*) FROM jobs").fetchone()[0] == 0, GENEROUS_S,
               what="every job acked")


def test_the_worker_reads_the_address_as_it_is_when_the_job_runs(start_checkout, start_workers, provider):
    app = start_checkout("queue")
    [order_id] = place_orders(app, 1)  # customer 1, Ana, at 14 Carver Street
    app.change_address(1, "9 Riverside Walk")  # she moves before any worker has run the job

    start_workers(1, app=TIFFIN_HANDLERS, lease_s=5, env=receipt_worker_env(provider))

    [receipt] = wait_until(provider.deliveries, GENEROUS_S, what="the receipt")
    assert f"order #{order_id}" in receipt.subject
    assert "Delivering to: 9 Riverside Walk" in receipt.body
    assert "Carver Street" not in receipt.body


def test_a_receipt_that_can_never_be_sent_goes_to_the_dead_letters_at_once(start_checkout, start_workers,
                                                                          provider, conn):
    typo = tiffin.add_customer(conn, "Fay Typo", "fay@example.invalid", "1 Nowhere Lane")
    app = start_checkout("queue")
    order_id = app.place_order(typo, total_cents=700)["id"]

    start_workers(1, app=TIFFIN_HANDLERS, lease_s=5, env=receipt_worker_env(provider))

    [dead] = wait_until(lambda: conn.execute("SELECT payload, reason, attempts FROM dead_jobs").fetchall(),
                        GENEROUS_S, what="the dead job")
    assert dead == ({"order_id": order_id}, "permanent", 1)
    assert [r.outcome for r in provider.requests()] == ["rejected"]


def test_the_checkout_refuses_bad_orders_and_addresses_with_a_reason(start_checkout):
    app = start_checkout("queue")

    with pytest.raises(InvalidArgument, match="items"):
        app.place_order(1)
    with pytest.raises(InvalidArgument, match="add up to 2300"):
        app.place_order(1, items=[{"name": "paneer thali", "quantity": 2, "price_cents": 1150}], total_cents=99)
    with pytest.raises(InvalidArgument, match="address"):
        app.change_address(1, "  ")
    assert app.order(9812) is None and app.customer(1)["address"] == "14 Carver Street, Flat 2"


def test_the_checkout_will_not_start_without_its_tables_or_schema(provider, schema):
    with pytest.raises(CourseError, match="tiffin.install"):
        CheckoutApp.start(schema=schema, provider_url=provider.url, install=False)  # queue tables only
    with pytest.raises(InvalidArgument, match="reset_schema"):
        CheckoutApp.start(schema=f"{schema}_missing", provider_url=provider.url)
    with pytest.raises(InvalidArgument, match="mode"):
        CheckoutApp.start(schema=schema, provider_url=provider.url, mode="cron")
