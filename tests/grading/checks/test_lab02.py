"""Lab 02's checks fail plausible wrong answers, for the reason a learner needs to hear.

The producer runs against a real PostgreSQL, with a trigger that makes the jobs table refuse an insert.
The handler runs in this process first, then in real worker processes against a real email provider
that refuses about a third of the sends. Handlers are defined the way a notebook defines them (in a
namespace that is not an importable module), so they travel to the workers by value, as a learner's do.
"""

import textwrap

import psycopg
import pytest

from course.grading import run_check

from .wrong_answers import assert_fails_with, failed


NOTEBOOK_IMPORTS = """
import threading
from psycopg.rows import dict_row
from course.core import queue
from course.programs import tiffin
from course.programs.email_provider import send_email
"""


def notebook_function(source: str, name: str):
    """Define a function as a notebook cell would: in a namespace no worker process can import."""
    namespace = {"__name__": "__notebook__"}
    exec(compile(NOTEBOOK_IMPORTS + textwrap.dedent(source), "<notebook cell>", "exec"), namespace)
    return namespace[name]


# -- 02.place_order -----------------------------------------------------------------------------------

TWO_COMMITS = """
def place_order_and_enqueue(conn, customer_id, items):
    order = tiffin.place_order(conn, customer_id, items=items)       # commits on its own
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})  # a second, separate commit
    return order["id"]
"""

ENQUEUE_AFTER_COMMIT = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})  # once the order is safe, surely
    return order["id"]
"""

A_COPY_IN_THE_JOB = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        details = tiffin.receipt_details(conn, order["id"])
        copy = {key: details[key] for key in ("order_id", "name", "email", "address", "items", "total_cents")}
        queue.enqueue(conn, "send_receipt", copy)  # saves the worker a query
    return order["id"]
"""

A_CONNECTION_OF_ITS_OWN = """
def place_order_and_enqueue(conn, customer_id, items):
    with psycopg.connect(conn.info.dsn, autocommit=True) as own, own.transaction():
        order = tiffin.place_order(own, customer_id, items=items)
        queue.enqueue(own, "send_receipt", {"order_id": order["id"]})
    return order["id"]
"""


ANOTHER_TYPE = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "receipt", {"order_id": order["id"]})
    return order["id"]
"""

RETURNS_THE_ORDER = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order  # the whole order, not its id
"""

HIDES_A_REFUSED_ORDER = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        try:
            order = tiffin.place_order(conn, customer_id, items=items)
        except Exception:
            return None  # the checkout said no: nothing to enqueue, and no need to bother the caller
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
"""


def producer(source: str):
    function = notebook_function(source, "place_order_and_enqueue")
    function.__globals__["psycopg"] = psycopg
    return function


def test_two_commits_leave_an_order_without_its_job():
    report = run_check("02.place_order", place_order_and_enqueue=producer(TWO_COMMITS))
    assert failed(report) == ["when the job cannot be stored, the order is not stored either (one transaction)"], \
        report.render()
    assert "a customer who paid and never gets a receipt" in report.render()


def test_enqueueing_after_the_commit_is_still_two_writes():
    report = run_check("02.place_order", place_order_and_enqueue=producer(ENQUEUE_AFTER_COMMIT))
    assert_fails_with(report, "the order is not stored either (one transaction)")


def test_a_copy_of_the_order_in_the_job_fails_ids_not_data():
    report = run_check("02.place_order", place_order_and_enqueue=producer(A_COPY_IN_THE_JOB))
    assert failed(report) == ["the job carries the order's id and nothing else (ids, not data)"], report.render()


def test_a_connection_of_its_own_escapes_the_callers_transaction():
    report = run_check("02.place_order", place_order_and_enqueue=producer(A_CONNECTION_OF_ITS_OWN))
    assert failed(report) == [
        "uses the connection it is given (the caller's rollback takes the order and its job away)"], report.render()


def test_a_job_of_another_type_is_not_the_receipt_job():
    report = run_check("02.place_order", place_order_and_enqueue=producer(ANOTHER_TYPE))
    assert failed(report) == ["the job's type is 'send_receipt'"], report.render()


def test_returning_the_order_is_not_returning_its_id():
    report = run_check("02.place_order", place_order_and_enqueue=producer(RETURNS_THE_ORDER))
    assert_fails_with(report, "returns the new order's id (an int)")


def test_hiding_the_checkouts_refusal_tells_the_customer_nothing_went_wrong():
    report = run_check("02.place_order", place_order_and_enqueue=producer(HIDES_A_REFUSED_ORDER))
    assert failed(report) == ["an order the checkout refuses (no customer 999) leaves no job and raises"], \
        report.render()


# -- 02.send_receipt: the handler, in this process and in worker processes ------------------------------------

READ_FRESH = """
    details = tiffin.receipt_details(conn, job.payload["order_id"])
"""

FROM_THE_PAYLOAD = """
def send_receipt(job, conn):
    receipt = tiffin.render_receipt(job.payload)  # as if the job carried a copy
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""

CACHED_CUSTOMERS = """
customers = {}

def send_receipt(job, conn):
    with conn.cursor(row_factory=dict_row) as cursor:
        order = cursor.execute("SELECT id AS order_id, customer_id, items, total_cents FROM orders WHERE id = %s",
                               [job.payload["order_id"]]).fetchone()
        if order["customer_id"] not in customers:  # one query fewer for regular customers
            customers[order["customer_id"]] = cursor.execute(
                "SELECT name, email, address FROM customers WHERE id = %s", [order["customer_id"]]).fetchone()
    receipt = tiffin.render_receipt({**order, **customers[order["customer_id"]]})
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""

SENDS_TWICE = """
def send_receipt(job, conn):
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    for _ in range(2):  # once more, in case the first one got lost
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""

SWALLOWS_ERRORS = """
def send_receipt(job, conn):
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    except Exception as error:
        print(f"receipt for order {details['order_id']} not sent: {error}")  # logged, and the job is done
"""

A_LOCK_FROM_THE_NOTEBOOK = """
one_send_at_a_time = threading.Lock()

def send_receipt(job, conn):
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    with one_send_at_a_time:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""


def handler(source: str):
    return notebook_function(source, "send_receipt")


@pytest.mark.slow
def test_a_handler_that_reads_a_copy_from_the_payload_finds_only_the_id():
    report = run_check("02.send_receipt", send_receipt=handler(FROM_THE_PAYLOAD))
    assert failed(report) == ["send_receipt(job, conn) for order 9812"], report.render()
    assert "KeyError" in report.render()


@pytest.mark.slow
def test_a_handler_that_caches_customers_sends_the_old_address():
    report = run_check("02.send_receipt", send_receipt=handler(CACHED_CUSTOMERS))
    assert_fails_with(report, "shows the address as it is when the job runs (40 Quayside, Flat 9)")
    assert "keep nothing from one job to the next" in report.render()


@pytest.mark.slow
def test_a_handler_that_swallows_the_providers_refusal_loses_receipts_in_the_workers():
    report = run_check("02.send_receipt", send_receipt=handler(SWALLOWS_ERRORS), seed=11)
    # Which orders' sends the provider refuses depends on the order the workers reach it in; when both
    # refusals fall on one customer, a check about that customer's receipts fails as well, by the same cause.
    assert_fails_with(
        report, "in 2 worker processes, with about a third of the sends refused (503), every order gets its receipt")
    text = report.render()
    assert "must raise out of the handler" in text and "timeline of job" in text
    assert "check('02.send_receipt', seed=11)" in text


def test_a_handler_that_sends_twice_to_be_sure_sends_two_receipts():
    report = run_check("02.send_receipt", send_receipt=handler(SENDS_TWICE))
    assert failed(report) == ["sends one receipt for order 9812"], report.render()


@pytest.mark.slow
def test_a_handler_that_needs_the_notebooks_objects_cannot_go_to_a_worker():
    report = run_check("02.send_receipt", send_receipt=handler(A_LOCK_FROM_THE_NOTEBOOK))
    assert failed(report) == ["the handler can be sent to a worker process"], report.render()
    assert "tiffin.provider_url()" in report.render()


def test_the_quiz_fails_the_copy_answer():
    report = run_check("02.quiz", q1="b", q2="c", q3="b", q4="a", q5="b")
    assert failed(report) == ["q2: which job gives the rider the right address"], report.render()
