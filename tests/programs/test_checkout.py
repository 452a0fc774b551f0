"""Tiffin's checkout app (course.programs.checkout), as a real process: receipts sent from a thread are
lost when the process ends; with a job stored beside every order, a worker sends each receipt once.

Every server and worker a test starts is killed at the end of the test, also when it fails (fixtures).
"""

from __future__ import annotations

from collections import Counter

import pytest

from course.infra import db
from course.errors import CourseError, InvalidArgument
from course.infra.processes import wait_until
from course.programs import tiffin
from course.programs.checkout import CheckoutApp
from tests.programs.test_email_provider import provider  # noqa: F401 (the email provider fixture)

pytestmark = pytest.mark.slow  # every test here starts worker processes or servers

TIFFIN_HANDLERS = "course.programs.tiffin:handlers"
GENEROUS_S = 30  # a loaded 2-core machine may be slow; nothing here should take this long


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
