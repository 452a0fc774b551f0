"""Tiffin, the food-delivery app of the lessons: its tables, its orders, and the receipt job.

    install(conn)               the queue's tables, Tiffin's tables (course/programs/sql/tiffin.sql), demo customers
    place_order(conn, ...)      check and store an order (the checkout app calls this)
    start_preparing(conn, id)   the kitchen starts cooking an order, if it is still placed
    handlers                    the Registry a worker runs: `send_receipt` {"order_id": ...}

A receipt is made the same way wherever it runs, in a thread of the web app (lab 01's anti-pattern) or
in a worker (the fix): read the order fresh, render it, send it. Only where it runs differs.

    python -m course worker --app course.programs.tiffin:handlers ...   with EMAIL_PROVIDER_URL set
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import psycopg
from psycopg.rows import dict_row

from course.core import queue
from course.programs import sql
from course.errors import InvalidArgument
from course.core.queue import PermanentError
from course.core.worker import Registry
from course.programs.email_provider import send_email

PROVIDER_URL_ENV = "EMAIL_PROVIDER_URL"  # where workers find the email provider
RENDER_S_ENV = "TIFFIN_RECEIPT_RENDER_S"  # how long rendering a receipt takes
DEFAULT_RENDER_S = 0.2  # a template and a small PDF; with the provider's answer, the lessons' ~1.5 s

SEED_CUSTOMERS = [  # ids 1 to 5, in this order
    ("Ana Souza", "ana@example.com", "14 Carver Street, Flat 2"),
    ("Ben Okafor", "ben@example.com", "3 Mill Lane"),
    ("Chen Wei", "chen@example.com", "88 Harbour Road, 5th floor"),
    ("Dana Ivanova", "dana@example.com", "21 Orchard Close"),
    ("Emeka Nwosu", "emeka@example.com", "7 Station Parade"),
]


# -- the tables --------------------------------------------------------------------------------------


def install(conn: psycopg.Connection, customers: Sequence[tuple[str, str, str]] = SEED_CUSTOMERS) -> None:
    """Create the queue's and Tiffin's tables in the connection's schema; add the demo customers.

    Safe to run again: nothing is created twice, and customers are added only to an empty table.
    """
    queue.install(conn)
    with conn.transaction():
        conn.execute(sql.query("tiffin", "schema"))
        conn.execute(sql.query("tiffin", "seed_customers"), {
            "names": [c[0] for c in customers], "emails": [c[1] for c in customers],
            "addresses": [c[2] for c in customers],
        })


def add_customer(conn: psycopg.Connection, name: str, email: str, address: str) -> int:
    """A new customer's id. The email is not checked here: the provider refuses impossible ones."""
    return conn.execute(sql.query("tiffin", "add_customer"),
                        {"name": name, "email": email, "address": address}).fetchone()[0]


def customer(conn: psycopg.Connection, customer_id: int) -> dict | None:
    with conn.cursor(row_factory=dict_row) as cursor:
        return cursor.execute(sql.query("tiffin", "customer"), {"customer_id": customer_id}).fetchone()


def change_address(conn: psycopg.Connection, customer_id: int, address: object) -> dict | None:
    """The customer with the new address, or None when there is no such customer."""
    if not isinstance(address, str) or not address.strip():
        raise InvalidArgument(f"address must be a non-empty string; got {address!r:.80}. Nothing was changed.")
    with conn.cursor(row_factory=dict_row) as cursor:
        return cursor.execute(sql.query("tiffin", "change_address"),
                              {"customer_id": customer_id, "address": address.strip()}).fetchone()


# -- orders ----------------------------------------------------------------------------------------


def _whole(value: object, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def checked_items(items: object) -> list[dict]:
    """[{"name": str, "quantity": int >= 1, "price_cents": int >= 0}, ...] or InvalidArgument."""
    example = '[{"name": "paneer thali", "quantity": 2, "price_cents": 1150}]'
    if not isinstance(items, list) or not items:
        raise InvalidArgument(f"items must be a non-empty list like {example}; got {items!r:.80}.")
    for position, item in enumerate(items):
        ok = (isinstance(item, Mapping) and isinstance(item.get("name"), str) and item["name"].strip()
              and _whole(item.get("quantity"), 1) and _whole(item.get("price_cents"), 0))
        if not ok:
            raise InvalidArgument(f"items[{position}] is {item!r:.80}; each item needs a name, a quantity "
                                  f"(1 or more) and a price_cents (whole cents), like {example}.")
    return [{"name": i["name"], "quantity": i["quantity"], "price_cents": i["price_cents"]} for i in items]


def order_total(items: list[dict] | None, total_cents: object) -> int:
    """The order's total in cents: from the items, or as given; InvalidArgument when neither makes sense."""
    if items is not None:
        from_items = sum(i["quantity"] * i["price_cents"] for i in items)
        if total_cents is not None and total_cents != from_items:
            raise InvalidArgument(f"total_cents is {total_cents!r} but the items add up to {from_items}: "
                                  "send one of them, or both agreeing.")
        total_cents = from_items
    if not _whole(total_cents, 1):
        raise InvalidArgument(f"an order needs items, or a total_cents of 1 or more (1250 for 12.50); "
                              f"got total_cents={total_cents!r}.")
    return total_cents


def place_order(conn: psycopg.Connection, customer_id: object, *, items: object = None,
                total_cents: object = None) -> dict:
    """Check and store an order; return it as stored (its id, status 'placed', ...).

    Runs in the connection's transaction, if one is open: a job enqueued in that same transaction is
    stored with the order or not at all.
    """
    if not _whole(customer_id, 1):
        raise InvalidArgument(f"customer_id must be a whole number (a customer's id); got {customer_id!r}.")
    checked = None if items is None else checked_items(items)
    total = order_total(checked, total_cents)
    try:
        with conn.transaction(), conn.cursor(row_factory=dict_row) as cursor:  # a savepoint if one is open
            return cursor.execute(sql.query("tiffin", "insert_order"), {
                "customer_id": customer_id, "items": json.dumps(checked or []), "total_cents": total,
            }).fetchone()
    except psycopg.errors.ForeignKeyViolation:
        raise InvalidArgument(f"there is no customer {customer_id}; nothing was stored.") from None


def order(conn: psycopg.Connection, order_id: int) -> dict | None:
    with conn.cursor(row_factory=dict_row) as cursor:
        return cursor.execute(sql.query("tiffin", "order"), {"order_id": order_id}).fetchone()


def start_preparing(conn: psycopg.Connection, order_id: int) -> bool:
    """The kitchen starts cooking an order that is still placed; True if it did (False: cancelled, further
    along already, or no such order)."""
    return conn.execute(sql.query("tiffin", "start_preparing"), {"order_id": order_id}).fetchone() is not None


# -- receipts ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Receipt:
    order_id: int
    to: str
    subject: str
    body: str


SUBJECT = "Your Tiffin receipt for order #{order_id}"
ORDER_IN_SUBJECT = re.compile(r"receipt for order #(\d+)")


def receipt_details(conn: psycopg.Connection, order_id: int) -> dict:
    """The order, its customer and their address as they are *now*. PermanentError if it is gone."""
    with conn.cursor(row_factory=dict_row) as cursor:
        row = cursor.execute(sql.query("tiffin", "receipt"), {"order_id": order_id}).fetchone()
    if row is None:
        raise PermanentError(f"order {order_id} does not exist (deleted, or its job was stored without it): "
                             "there is nothing to send a receipt for")
    return row


def render_seconds() -> float:
    """How long rendering a receipt takes: TIFFIN_RECEIPT_RENDER_S, or DEFAULT_RENDER_S."""
    text = os.environ.get(RENDER_S_ENV)
    if text is None:
        return DEFAULT_RENDER_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 600:
        raise InvalidArgument(f"{RENDER_S_ENV}={text!r}: give seconds from 0 to 600, e.g. 0.2.")
    return seconds


def render_receipt(details: Mapping, seconds: float | None = None) -> Receipt:
    """Turn an order into an email. It takes a moment (a template, a PDF): `seconds`, by default
    render_seconds(). The body names the delivery address, so a stale one shows in the provider."""
    time.sleep(render_seconds() if seconds is None else seconds)
    lines = [f"Hello {details['name']},", "", f"Thank you for your order #{details['order_id']}.", ""]
    for item in details["items"]:
        lines.append(f"  {item['quantity']} x {item['name']}  {_money(item['quantity'] * item['price_cents'])}")
    lines += [f"Total: {_money(details['total_cents'])}", "", f"Delivering to: {details['address']}", "",
              "Tiffin"]
    subject = SUBJECT.format(order_id=details["order_id"])
    return Receipt(details["order_id"], details["email"], subject, "\n".join(lines))


def draw_pdf(cpu_s: float) -> None:
    """The part of rendering a receipt that computes (drawing its PDF): `cpu_s` seconds of this
    thread's CPU time, spent in Python. In a process that also serves customers it holds the
    interpreter (one thread runs Python at a time) while their requests wait for it."""
    until = time.thread_time() + cpu_s
    while time.thread_time() < until:
        sum(range(2_000))


def _money(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def receipt_key(order_id: int) -> str:
    """The Idempotency-Key of an order's receipt: one email per order, however often the job runs."""
    return f"receipt:{order_id}"


def receipts_by_order(deliveries: Iterable) -> Counter:
    """How many receipts each order got, from provider.deliveries(): 0 is lost, 2 is a duplicate."""
    counts = Counter()
    for delivery in deliveries:
        subject = delivery.subject if hasattr(delivery, "subject") else delivery["subject"]
        match = ORDER_IN_SUBJECT.search(subject)
        if match:
            counts[int(match.group(1))] += 1
    return counts


def orders_without_a_receipt(conn: psycopg.Connection, deliveries: Iterable) -> list[int]:
    """The orders the provider never delivered a receipt for: the customers who were told "order
    placed" and then heard nothing."""
    received = receipts_by_order(deliveries)
    return [order_id for (order_id,) in conn.execute(sql.query("tiffin", "order_ids")) if not received[order_id]]


# -- the job ---------------------------------------------------------------------------------------


handlers = Registry()


def provider_url() -> str:
    url = os.environ.get(PROVIDER_URL_ENV)
    if not url:
        # Not a PermanentError: once the worker is started with the variable, the retry works.
        raise RuntimeError(f"{PROVIDER_URL_ENV} is not set in this worker's environment; start the worker "
                           f"with course.core.worker.spawn(..., env={{'{PROVIDER_URL_ENV}': provider.url}})")
    return url


@handlers.handler("send_receipt", payload={"order_id": int})
def send_receipt(job, conn):
    """The job carries the order's id only; everything else is read now, so nothing in it is stale."""
    details = receipt_details(conn, job.payload["order_id"])
    receipt = render_receipt(details)
    # The same key on every attempt: if an earlier attempt timed out but was delivered, the provider
    # answers with that delivery instead of sending a second email.
    send_email(provider_url(), receipt.to, receipt.subject, receipt.body,
               idempotency_key=receipt_key(receipt.order_id))
