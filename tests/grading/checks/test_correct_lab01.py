"""Lab 01's checks pass correct answers written unlike the reference (issue 22): other parsing, SQL that
does the matching, the course's own counter, other ways to make the provider refuse and to put it back
(provider.reset(settings=True) among them: it erases the provider's records, and the check does not
need them), signals sent by pid, and the answers the hints spell out.
"""

import os
import re
import signal
from collections import Counter

import pytest

from course.grading import run_check
from course.infra import processes
from course.programs import tiffin

# -- 01.receipts_lost ---------------------------------------------------------------------------------


def hints_spelled_out(conn, deliveries):
    """Hint 4, word for word."""
    received = {int(m.group(1)) for d in deliveries if (m := re.search(r"receipt for order #(\d+)$", d.subject))}
    return [order_id for (order_id,) in conn.execute("SELECT id FROM orders ORDER BY id").fetchall()
            if order_id not in received]


def anti_join_in_sql(conn, deliveries):
    """The numbers parsed in Python, the matching done by PostgreSQL."""
    prefix = "Your Tiffin receipt for order #"
    numbers = [int(d.subject[len(prefix):]) for d in deliveries
               if d.subject.startswith(prefix) and d.subject[len(prefix):].isdigit()]
    rows = conn.execute("SELECT id FROM orders WHERE id <> ALL(%s::bigint[]) ORDER BY id", [numbers]).fetchall()
    return [row[0] for row in rows]


def counted_by_the_course(conn, deliveries):
    """tiffin.receipts_by_order counts receipts per order; sorted in Python instead of by the query."""
    counts = Counter(tiffin.receipts_by_order(deliveries))
    return sorted(order_id for (order_id,) in conn.execute("SELECT id FROM orders") if counts[order_id] == 0)


def a_temporary_table(conn, deliveries):
    """The receipts' numbers copied into a temporary table, the difference taken by a LEFT JOIN."""
    with conn.transaction():
        conn.execute("CREATE TEMPORARY TABLE delivered (order_id bigint) ON COMMIT DROP")
        with conn.cursor().copy("COPY delivered (order_id) FROM STDIN") as copy:
            for d in deliveries:
                if m := re.fullmatch(r"Your Tiffin receipt for order #(\d+)", d.subject):
                    copy.write_row([int(m.group(1))])
        rows = conn.execute("SELECT o.id FROM orders o LEFT JOIN delivered d ON d.order_id = o.id "
                            "WHERE d.order_id IS NULL ORDER BY o.id").fetchall()
    return [order_id for (order_id,) in rows]


def each_orders_subject(conn, deliveries):
    """Round f2: no number parsed at all; each order's receipt subject looked up among those delivered,
    the list sorted at the end."""
    subjects = {d.subject for d in deliveries}
    lost = [order_id for (order_id,) in conn.execute("SELECT id FROM orders")
            if tiffin.SUBJECT.format(order_id=order_id) not in subjects]
    lost.sort()
    return lost


def a_cte_and_not_exists(conn, deliveries):
    """Round f2: the received numbers as a CTE over unnest, the orders without one by NOT EXISTS, ORDER BY 1."""
    received = [int(m[1]) for d in deliveries
                if (m := re.fullmatch(r"Your Tiffin receipt for order #([0-9]+)", d.subject))]
    return [order_id for (order_id,) in conn.execute(
        "WITH received(id) AS (SELECT unnest(%(ids)s::bigint[])) "
        "SELECT id FROM orders o WHERE NOT EXISTS (SELECT FROM received r WHERE r.id = o.id) ORDER BY 1",
        {"ids": received})]


@pytest.mark.parametrize("answer", [hints_spelled_out, anti_join_in_sql, counted_by_the_course, a_temporary_table,
                                    each_orders_subject, a_cte_and_not_exists])
def test_correct_lists_pass(answer):
    report = run_check("01.receipts_lost", receipts_lost=answer)
    assert report.passed, report.render()


# -- 01.lose_a_receipt: real processes, a few seconds each -----------------------------------------------


def the_reference(app, provider, how):
    """The solution, with the hints' last step: count the requests, wait for one more."""
    if how == "provider_error":
        seen = len(provider.requests())
        provider.configure(down=True)
    order_id = app.place_order(1, total_cents=1250)["id"]
    if how == "deploy":
        app.terminate()
    elif how == "crash":
        app.kill()
    else:
        processes.wait_until(lambda: len(provider.requests()) > seen, timeout=30, what="the receipt's one send")
        provider.healthy()
    return order_id


def by_pid_and_by_failure_rate(app, provider, how):
    """Signals sent by pid (the check waits for the exit), every send refused at random instead of an outage,
    and the provider put back as it was started: reset(settings=True), which also forgets its records."""
    if how == "provider_error":
        refused_before = sum(r.status == 503 for r in provider.requests())
        provider.configure(failure_rate=1.0)
    order = app.place_order(2, items=[{"name": "dal", "quantity": 1, "price_cents": 800}])
    if how in ("deploy", "crash"):
        os.kill(app.pid, signal.SIGTERM if how == "deploy" else signal.SIGKILL)
    else:
        processes.wait_until(lambda: sum(r.status == 503 for r in provider.requests()) > refused_before, timeout=30)
        provider.reset(settings=True)
    return order["id"]


def an_outage_window(app, provider, how):
    """A timed outage, ended by hand once the receipt's send was refused; the app's own log read as well."""
    if how == "provider_error":
        provider.outage(120)
    order_id = app.place_order(3, total_cents=990)["id"]
    if how == "deploy":
        app.stop()
    elif how == "crash":
        app.kill()
    else:
        processes.wait_until(lambda: f"receipt for order {order_id} lost" in app.log_tail(200), timeout=30)
        provider.configure(down_from=None, down_until=None)
    return order_id


@pytest.mark.slow
@pytest.mark.parametrize("answer", [the_reference, by_pid_and_by_failure_rate, an_outage_window])
def test_correct_losses_pass(answer):
    report = run_check("01.lose_a_receipt", lose_a_receipt=answer)
    assert report.passed, report.render()
