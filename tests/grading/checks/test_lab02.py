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

from .wrong_answers import assert_fails_with, failed, fails_exactly


NOTEBOOK_IMPORTS = """
import threading
from psycopg.rows import dict_row
from course.core import queue
from course.programs import tiffin
from course.programs.email_provider import ProviderTimeout, send_email
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

TWO_TRANSACTIONS_AND_A_DELETE = """
def place_order_and_enqueue(conn, customer_id, items):
    # Round f3 (po_w02): the end state is the reference's, but the order is committed alone in between
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
    try:
        with conn.transaction():
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    except Exception:
        conn.execute("DELETE FROM orders WHERE id = %s", [order["id"]])
        raise
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


MAX_ID = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        tiffin.place_order(conn, customer_id, items=items)
        order_id = conn.execute("SELECT max(id) FROM orders").fetchone()[0]  # the newest order is mine, surely
        queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    return order_id
"""

SWALLOWS_THE_JOBS_FAILURE = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        try:
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        except Exception:
            pass  # the order matters more than its receipt
    return order["id"]
"""

COMMITS_FOR_THE_CALLER = """
def place_order_and_enqueue(conn, customer_id, items):
    order = tiffin.place_order(conn, customer_id, items=items)
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    conn.commit()  # make sure both are saved
    return order["id"]
"""

A_TOTAL_INSTEAD_OF_ITEMS = """
def place_order_and_enqueue(conn, customer_id, items):
    total = sum(item["quantity"] * item["price_cents"] for item in items or [])
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
"""

THE_JOB_FIRST = """
def place_order_and_enqueue(conn, customer_id, items):
    next_id = conn.execute("SELECT coalesce(max(id), 9811) + 1 FROM orders").fetchone()[0]
    queue.enqueue(conn, "send_receipt", {"order_id": next_id})  # the job first, so it is never forgotten
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
    return order["id"]
"""

ONE_JOB_PER_ITEM = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        for _ in items:
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
"""

THE_ID_AS_TEXT = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": str(order["id"])})
    return order["id"]
"""

ITS_OWN_CHECK_OF_THE_CUSTOMER = """
def place_order_and_enqueue(conn, customer_id, items):
    if not 1 <= customer_id <= 5:
        return None  # not one of our customers
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
"""

# Red-team round 1 (written from the statement alone, issue 22 item 5): each breaks one stated rule.

SAVEPOINT_ONLY_AROUND_THE_JOB = """
def place_order_and_enqueue(conn, customer_id, items):
    order = tiffin.place_order(conn, customer_id, items=items)
    with conn.transaction():
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
"""

UNIQUE_KEY_PER_CUSTOMER = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]}, unique_key=f"receipt-{customer_id}")
    return order["id"]
"""

ONLY_THE_FIRST_ITEM = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items[:1])
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
"""

NONE_FOR_A_REFUSED_ORDER = """
def place_order_and_enqueue(conn, customer_id, items):
    try:
        with conn.transaction():
            order = tiffin.place_order(conn, customer_id, items=items)
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    except ValueError:
        return None
    return order["id"]
"""

THE_ID_AS_A_STRING = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return str(order["id"])
"""

AN_INSERT_OF_ITS_OWN = """
def place_order_and_enqueue(conn, customer_id, items):
    # Red team (issue 22): the order written without tiffin.place_order, so without the checkout's checks.
    import json
    total = sum(i["quantity"] * i["price_cents"] for i in items)
    with conn.transaction():
        order_id = conn.execute("INSERT INTO orders (customer_id, items, total_cents) VALUES (%s, %s, %s) "
                                "RETURNING id", [customer_id, json.dumps(items), total]).fetchone()[0]
        queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    return order_id
"""


def producer(source: str):
    function = notebook_function(source, "place_order_and_enqueue")
    function.__globals__["psycopg"] = psycopg
    return function



# Round f4 (po_w10): the id read back as the customer's latest order; the other checkout between the
# statements orders for the same customer (one customer, two devices).
THE_CUSTOMERS_LATEST_ORDER = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        tiffin.place_order(conn, customer_id, items=items)
        (order_id,) = conn.execute(
            "SELECT id FROM orders WHERE customer_id = %s ORDER BY id DESC LIMIT 1", [customer_id]).fetchone()
        queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    return order_id
"""

# Round f4 (po_w4): a customer_id converted with int() first: "2", 2.7 or True becomes a customer the
# checkout never refused.
THE_CUSTOMER_CONVERTED = """
def place_order_and_enqueue(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, int(customer_id), items=items)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]
"""



WRONG_PRODUCERS = {  # the wrong answer, the checks it must fail, the checks it may fail too
    "the_customer_converted": (THE_CUSTOMER_CONVERTED, ["an order the checkout refuses raises"], []),
    "the_customers_latest_order": (THE_CUSTOMERS_LATEST_ORDER, ["the job carries the order's id and nothing else"],
                                   []),
    "two_commits": (TWO_COMMITS, ["the order is not stored either (one transaction)"],
                    []),
    "enqueue_after_commit": (ENQUEUE_AFTER_COMMIT,
                             ["the order is not stored either (one transaction)"],
                             []),
    "two_transactions_and_a_delete": (TWO_TRANSACTIONS_AND_A_DELETE,
                                      ["the order is not stored either (one transaction)"], []),
    "a_copy_in_the_job": (A_COPY_IN_THE_JOB, ["the job carries the order's id and nothing else"], []),
    "a_connection_of_its_own": (A_CONNECTION_OF_ITS_OWN, ["uses the connection it is given"], []),
    "another_type": (ANOTHER_TYPE, ["the job's type is 'send_receipt'"], []),
    "returns_the_order": (RETURNS_THE_ORDER, ["returns the new order's id (an int)"], []),
    "hides_a_refused_order": (HIDES_A_REFUSED_ORDER,
                              ["an order the checkout refuses raises"],
                              ["and the failure reaches the caller"]),
    "max_id": (MAX_ID, ["the job carries the order's id and nothing else"], []),
    "swallows_the_jobs_failure": (SWALLOWS_THE_JOBS_FAILURE, ["and the failure reaches the caller"],
                                  ["the order is not stored either (one transaction)"]),
    "commits_for_the_caller": (COMMITS_FOR_THE_CALLER,
                               ["uses the connection it is given", "the order is not stored either (one transaction)"],
                               ["returns the new order's id (an int)"]),
    "a_total_instead_of_items": (A_TOTAL_INSTEAD_OF_ITEMS, ["stores the order with tiffin.place_order"],
                                 ["an order the checkout refuses raises"]),
    "the_job_first": (THE_JOB_FIRST,
                      ["no job is left behind", "the job carries the order's id and nothing else"],
                      ["an order the checkout refuses raises"]),
    "one_job_per_item": (ONE_JOB_PER_ITEM, ["stores exactly one job"], []),
    "the_id_as_text": (THE_ID_AS_TEXT, ["the job carries the order's id and nothing else"], []),
    "its_own_check_of_the_customer": (ITS_OWN_CHECK_OF_THE_CUSTOMER,
                                      ["an order the checkout refuses raises"],
                                      []),
    "savepoint_only_around_the_job": (SAVEPOINT_ONLY_AROUND_THE_JOB,
                                      ["the order is not stored either (one transaction)"], []),
    "unique_key_per_customer": (UNIQUE_KEY_PER_CUSTOMER, ["stores exactly one job"], []),
    "only_the_first_item": (ONLY_THE_FIRST_ITEM, ["stores the order with tiffin.place_order"], []),
    "none_for_a_refused_order": (NONE_FOR_A_REFUSED_ORDER, ["an order the checkout refuses raises"], []),
    "the_id_as_a_string": (THE_ID_AS_A_STRING, ["returns the new order's id (an int)"], []),
    "an_insert_of_its_own": (AN_INSERT_OF_ITS_OWN, ["an order the checkout refuses raises"],
                             ["stores the order with tiffin.place_order"]),
}


@pytest.mark.parametrize("case", WRONG_PRODUCERS)
def test_wrong_producers_fail(case):
    source, must, may = WRONG_PRODUCERS[case]
    report = run_check("02.place_order", place_order_and_enqueue=producer(source))
    assert fails_exactly(report, must, may), report.render()


def test_two_commits_are_told_what_the_customer_loses():
    text = run_check("02.place_order", place_order_and_enqueue=producer(TWO_COMMITS)).render()
    assert "a customer who paid and never gets a receipt" in text, text


def test_an_id_read_back_from_the_table_is_told_about_the_other_checkout():
    text = run_check("02.place_order", place_order_and_enqueue=producer(MAX_ID)).render()
    assert "another checkout committed between your statements" in text, text


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


RETRIES_BY_ITSELF = """
def send_receipt(job, conn):
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    for attempt in range(3):  # three tries here, so the queue need not bother
        try:
            send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
            return
        except Exception:
            if attempt == 2:
                raise
"""

EVERY_FAILURE_PERMANENT = """
from course.errors import PermanentError

def send_receipt(job, conn):
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    except Exception as error:
        raise PermanentError(f"receipt not sent: {error}")  # "so it does not loop"
"""

ONE_RECEIPT_RENDERED_PER_ORDER = """
rendered = {}

def send_receipt(job, conn):
    order_id = job.payload["order_id"]
    if order_id not in rendered:  # rendering is slow: a retry reuses the first one
        rendered[order_id] = tiffin.render_receipt(tiffin.receipt_details(conn, order_id))
    receipt = rendered[order_id]
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""

A_BODY_OF_ITS_OWN = """
def send_receipt(job, conn):
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    send_email(tiffin.provider_url(), details["email"], tiffin.SUBJECT.format(order_id=details["order_id"]),
               f"Delivering to: {details['address']}")
"""

THE_FIRST_EMAIL_SEEN = """
emails = {}

def send_receipt(job, conn):
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    customer = conn.execute("SELECT customer_id FROM orders WHERE id = %s", [job.payload["order_id"]]).fetchone()[0]
    emails.setdefault(customer, details["email"])  # the address we first sent them a receipt at
    receipt = tiffin.render_receipt({**details, "email": emails[customer]})
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""

CATCHES_ONLY_THE_REJECTION = """
from course.programs.email_provider import EmailRejected

def send_receipt(job, conn):
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    except EmailRejected:
        pass  # a bad address: nothing anyone can do
"""

# Red-team round 1's handlers (written from the statement alone): each breaks one stated rule.

SKIPS_RETRIES = """
def send_receipt(job, conn):
    if job.attempts > 1:
        return  # sent the first time, surely
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""

ADDRESS_KEPT_BY_ORDER = """
addresses = {}

def send_receipt(job, conn):
    details = dict(tiffin.receipt_details(conn, job.payload["order_id"]))
    details["address"] = addresses.setdefault(details["order_id"], details["address"])
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""

THE_CUSTOMERS_NEWEST_ORDER = """
def send_receipt(job, conn):
    with conn.cursor(row_factory=dict_row) as cursor:
        details = cursor.execute(
            "SELECT o.id AS order_id, o.items, o.total_cents, c.name, c.email, c.address "
            "FROM orders o JOIN customers c ON c.id = o.customer_id "
            "WHERE o.customer_id = (SELECT customer_id FROM orders WHERE id = %s) ORDER BY o.id DESC LIMIT 1",
            [job.payload["order_id"]]).fetchone()
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""

SWALLOWS_A_SECOND_503 = """
def send_receipt(job, conn):
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    for _ in range(2):
        try:
            send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
            return
        except Exception as error:
            if "Rejected" in type(error).__name__:
                raise
"""

JOINS_THE_CUSTOMER_ON_THE_ORDERS_ID = """
def send_receipt(job, conn):
    query = ("SELECT o.id, c.name, c.email, c.address, o.items, o.total_cents FROM orders o "
             "JOIN customers c ON c.id = {} WHERE o.id = %s")
    row = conn.execute(query.format("o.id"), [job.payload["order_id"]]).fetchone()
    if row is None:  # red0's round: the typo shows only where some customer's id is the order's
        row = conn.execute(query.format("o.customer_id"), [job.payload["order_id"]]).fetchone()
    details = dict(zip(["order_id", "name", "email", "address", "items", "total_cents"], row))
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""

A_SHORT_TIMEOUT_THEN_AGAIN = """
def send_receipt(job, conn):
    # Round f3 (sr_w12): a timed-out send is sent again, without a key: a slow provider delivers both
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body, timeout=0.06)
    except ProviderTimeout:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""

# Round f4 (f4b0102): answers of the blind round that passed on seeds 2 and 3 (orders in one status only,
# a refusal swallowed on the last try, an address kept per email, a total summed from the items).
ONLY_PLACED_ORDERS = """
def send_receipt(job, conn):
    row = conn.execute(
        "SELECT o.id AS order_id, o.items, o.total_cents, c.name, c.email, c.address "
        "FROM orders o JOIN customers c ON c.id = o.customer_id "
        "WHERE o.id = %s AND o.status = 'placed'", [job.payload["order_id"]]).fetchone()
    if row is None:
        return  # cancelled or already on its way: no receipt needed
    details = dict(zip(("order_id", "items", "total_cents", "name", "email", "address"), row))
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""

SWALLOWS_ON_THE_LAST_TRY = """
from course.programs.email_provider import TransientEmailError

def send_receipt(job, conn):
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    except TransientEmailError:
        if job.attempts < job.max_attempts:
            raise
"""

ADDRESS_KEPT_BY_EMAIL = """
first_address = {}

def send_receipt(job, conn):
    details = dict(tiffin.receipt_details(conn, job.payload["order_id"]))
    details["address"] = first_address.setdefault(details["email"], details["address"])
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""

TOTAL_FROM_THE_ITEMS = """
def send_receipt(job, conn):
    details = dict(tiffin.receipt_details(conn, job.payload["order_id"]))
    details["total_cents"] = sum(item["quantity"] * item["price_cents"] for item in details["items"])
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
"""


def handler(source: str):
    return notebook_function(source, "send_receipt")



WRONG_HANDLERS = {  # the wrong answer, the checks it must fail, the checks it may fail too (each runs workers)
    "from_the_payload": (FROM_THE_PAYLOAD, ["sends the customer one receipt per job", "every order gets its receipt"],
                         []),
    "cached_customers": (CACHED_CUSTOMERS,
                         ["the receipt shows the order, the name and the address as they are when the job runs"],
                         ["the receipt goes to the customer's email", "workers read the address when they run"]),
    "sends_twice": (SENDS_TWICE, ["sends the customer one receipt per job"], []),
    "swallows_errors": (SWALLOWS_ERRORS, ["a send the provider refuses raises"], ["every order gets its receipt"]),
    "a_lock_from_the_notebook": (A_LOCK_FROM_THE_NOTEBOOK, ["the handler can be sent to a worker process"], []),
    "retries_by_itself": (RETRIES_BY_ITSELF, ["a send the provider refuses raises"], []),
    "every_failure_permanent": (EVERY_FAILURE_PERMANENT, ["a send the provider refuses raises"],
                                ["every order gets its receipt"]),
    "one_receipt_rendered_per_order": (ONE_RECEIPT_RENDERED_PER_ORDER,
                                       ["the name and the address as they are when the job runs"],
                                       ["the receipt goes to the customer's email"]),
    "a_body_of_its_own": (A_BODY_OF_ITS_OWN, ["sends the customer one receipt per job"], []),
    "the_first_email_seen": (THE_FIRST_EMAIL_SEEN, ["the receipt goes to the customer's email"],
                             ["the receipt shows the order, the name and the address as they are when the job runs"]),
    "catches_only_the_rejection": (CATCHES_ONLY_THE_REJECTION, ["a send the provider refuses raises"], []),
    "skips_retries": (SKIPS_RETRIES, ["sends the customer one receipt per job"],
                      ["a send the provider refuses raises", "every order gets its receipt"]),
    "address_kept_by_order": (ADDRESS_KEPT_BY_ORDER, ["the name and the address as they are when the job runs"],
                              ["the receipt goes to the customer's email", "workers read the address when they run"]),
    "the_customers_newest_order": (THE_CUSTOMERS_NEWEST_ORDER, ["sends the customer one receipt per job"],
                                   ["every order gets its receipt"]),
    "swallows_a_second_503": (SWALLOWS_A_SECOND_503, ["a send the provider refuses raises"],
                              ["every order gets its receipt"]),
    "a_short_timeout_then_again": (A_SHORT_TIMEOUT_THEN_AGAIN, ["sends the customer one receipt per job"], []),
    "only_placed_orders": (ONLY_PLACED_ORDERS, ["sends the customer one receipt per job"],
                           ["a send the provider refuses raises", "every order gets its receipt"]),
    "swallows_on_the_last_try": (SWALLOWS_ON_THE_LAST_TRY, ["a send the provider refuses raises"],
                                 ["every order gets its receipt"]),
    "address_kept_by_email": (ADDRESS_KEPT_BY_EMAIL, ["the name and the address as they are when the job runs"],
                              ["the receipt goes to the customer's email", "workers read the address when they run"]),
    "total_from_the_items": (TOTAL_FROM_THE_ITEMS, ["sends the customer one receipt per job"], []),
    "joins_the_customer_on_the_orders_id": (JOINS_THE_CUSTOMER_ON_THE_ORDERS_ID,
                                            ["the receipt goes to the customer's email"],
                                            ["the name and the address as they are when the job runs",
                                             "every order gets its receipt", "workers read the address"]),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", WRONG_HANDLERS)
def test_wrong_handlers_fail(case):
    source, must, may = WRONG_HANDLERS[case]
    report = run_check("02.send_receipt", send_receipt=handler(source))
    assert fails_exactly(report, must, may), report.render()


@pytest.mark.slow
@pytest.mark.slow
def test_a_send_sent_again_after_a_timeout_is_told_a_timeout_does_not_mean_not_sent():
    text = run_check("02.send_receipt", send_receipt=handler(A_SHORT_TIMEOUT_THEN_AGAIN)).render()
    assert "a timeout does not mean 'not sent'" in text, text


@pytest.mark.slow
def test_a_handler_that_swallows_the_providers_refusal_is_told_to_raise_and_replays():
    report = run_check("02.send_receipt", send_receipt=handler(SWALLOWS_ERRORS), seed=11)
    text = report.render()
    assert "Let the exception out of the handler" in text and "check('02.send_receipt', seed=11)" in text, text
    again = run_check("02.send_receipt", send_receipt=handler(SWALLOWS_ERRORS), seed=11)
    # The same checks fail, the in-process one with the same example (which sends the workers' provider
    # refuses depends on the order they reach it in: their note may name other addresses).
    assert failed(again) == failed(report), again.render()
    example = [r.example for r in report.results if r.name.startswith("a send the provider refuses")]
    assert example == [r.example for r in again.results if r.name.startswith("a send the provider refuses")]


@pytest.mark.slow
def test_a_handler_that_needs_the_notebooks_objects_is_told_to_use_what_it_is_given():
    text = run_check("02.send_receipt", send_receipt=handler(A_LOCK_FROM_THE_NOTEBOOK)).render()
    assert "tiffin.provider_url()" in text, text


def test_the_quiz_fails_the_copy_answer():
    report = run_check("02.quiz", q1="b", q2="c", q3="b", q4="a", q5="b")
    assert failed(report) == ["q2: which job gives the rider the right address"], report.render()


def test_a_producer_stub_that_returns_none_passes_nothing():
    """A do-nothing producer stores nothing: no check of 02.place_order may count it as passed (round f2's
    stub probe: 0 of 10, kept so)."""
    report = run_check("02.place_order", seed=1, place_order_and_enqueue=lambda *a, **k: None)
    assert report.results and not any(r.passed for r in report.results), report.render()


@pytest.mark.slow
def test_a_handler_stub_that_returns_none_passes_nothing():
    """A do-nothing handler sends nothing: no check of 02.send_receipt may count it as passed (round f2's
    stub probe: 0 of 8, kept so)."""
    report = run_check("02.send_receipt", seed=1, send_receipt=lambda *a, **k: None)
    assert report.results and not any(r.passed for r in report.results), report.render()
