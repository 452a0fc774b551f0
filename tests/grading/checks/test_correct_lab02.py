"""Lab 02's checks pass correct producers and handlers written unlike the reference (issue 22): other
transaction blocks, other helpers, aliases, other row shapes, the course's own handler, and the answers the
hints spell out. Handlers travel to real worker processes, as a notebook's do.
"""

import pytest

from course.grading import run_check

from .test_lab02 import handler, producer

# -- 02.place_order ---------------------------------------------------------------------------------------

HINTS_SPELLED_OUT = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
"""

A_TOTAL_THAT_AGREES_AND_ENQUEUE_MANY = """
from course.core.queue import enqueue_many as store_jobs

def place_order_and_enqueue(conn, customer_id, items):
    total = sum(i["quantity"] * i["price_cents"] for i in items) if isinstance(items, list) else None
    with conn.transaction() as outer:
        placed = tiffin.place_order(conn, customer_id, items=items, total_cents=total or None)
        (job_id,) = store_jobs(conn, "send_receipt", [dict(order_id=placed["id"])])
    return int(placed["id"])
"""

ITS_OWN_INSERT_FOR_THE_JOB = """
from psycopg.types.json import Jsonb

def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        with conn.transaction():  # a savepoint inside: still one transaction
            order_id = tiffin.place_order(conn, customer_id, items=items)["id"]
        conn.execute("INSERT INTO jobs (type, payload, queue) VALUES ('send_receipt', %s, 'receipts')",
                     [Jsonb({"order_id": order_id})])
    return order_id
"""

SAVEPOINTS_INSIDE_ONE_TRANSACTION = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        with conn.transaction():
            order_id = tiffin.place_order(conn, customer_id, items=items)["id"]
        with conn.transaction():
            queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    return order_id
"""

KEYWORDS_AND_AN_ALIAS = """
from course.core.queue import enqueue as put

def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        row = tiffin.place_order(conn, customer_id=customer_id, items=items)
        put(conn, "send_receipt", payload=dict(order_id=row["id"]))
    return row["id"]
"""


@pytest.mark.parametrize("source", [HINTS_SPELLED_OUT, A_TOTAL_THAT_AGREES_AND_ENQUEUE_MANY,
                                    ITS_OWN_INSERT_FOR_THE_JOB, SAVEPOINTS_INSIDE_ONE_TRANSACTION,
                                    KEYWORDS_AND_AN_ALIAS],
                         ids=["hints", "enqueue_many", "own_insert", "savepoints", "keywords_and_an_alias"])
def test_correct_producers_pass(source):
    report = run_check("02.place_order", place_order_and_enqueue=producer(source))
    assert report.passed, report.render()


# -- 02.send_receipt: real worker processes, several seconds each ------------------------------------------

HANDLER_HINTS_SPELLED_OUT = """
def send_receipt(job, conn):
    with conn.cursor(row_factory=dict_row) as cursor:
        details = cursor.execute(
            "SELECT o.id AS order_id, o.items, o.total_cents, c.name, c.email, c.address "
            "FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = %s",
            [job.payload["order_id"]]).fetchone()
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""

TUPLES_AND_A_KEY = """
import os

def send_receipt(job, conn):
    order_id = job.payload["order_id"]
    row = conn.execute("SELECT o.id, o.items, o.total_cents, c.name, c.email, c.address FROM orders o, customers c "
                       "WHERE c.id = o.customer_id AND o.id = %s", [order_id]).fetchone()
    details = dict(zip(("order_id", "items", "total_cents", "name", "email", "address"), row))
    receipt = tiffin.render_receipt(details)
    send_email(os.environ["EMAIL_PROVIDER_URL"], receipt.to, receipt.subject, receipt.body,
               idempotency_key=f"order-{order_id}-receipt")
"""

COMMA_JOIN_AND_A_KEY_PER_TRY = """
def send_receipt(job, conn):
    order_id = job.payload["order_id"]
    name, email, address, items, total, number = conn.execute(
        "SELECT c.name, c.email, c.address, o.items, o.total_cents, o.id FROM customers c, orders o "
        "WHERE o.customer_id = c.id AND o.id = %s", (order_id,)).fetchone()
    receipt = tiffin.render_receipt({"order_id": number, "name": name, "email": email, "address": address,
                                     "items": items, "total_cents": total})
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body,
               idempotency_key=f"r-{order_id}-{job.attempts}")
"""

THE_COURSE_HANDLER = """
send_receipt = tiffin.send_receipt
"""


@pytest.mark.slow
@pytest.mark.parametrize("source", [HANDLER_HINTS_SPELLED_OUT, TUPLES_AND_A_KEY, COMMA_JOIN_AND_A_KEY_PER_TRY,
                                    THE_COURSE_HANDLER],
                         ids=["hints", "tuples_and_a_key", "comma_join_and_a_key_per_try", "the_course_handler"])
def test_correct_handlers_pass(source):
    report = run_check("02.send_receipt", send_receipt=handler(source))
    assert report.passed, report.render()
