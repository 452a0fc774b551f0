"""Lab 01's checks fail plausible wrong answers, for the reason a learner needs to hear.

receipts_lost runs against a real PostgreSQL; lose_a_receipt against a real checkout app and a real email
provider, each in a process of its own (the check starts and stops them).
"""

import re

import pytest

from course.infra import processes
from course.grading import run_check
from course.programs import tiffin

from .wrong_answers import assert_fails_with, failed


def order_ids(conn) -> list[int]:
    return [order_id for (order_id,) in conn.execute("SELECT id FROM orders ORDER BY id")]


# -- 01.receipts_lost ---------------------------------------------------------------------------------


def by_email_address(conn, deliveries):
    """'Did this customer get a receipt?' instead of 'did this order?'"""
    emailed = {d.to for d in deliveries}
    rows = conn.execute("SELECT o.id, c.email FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id")
    return [order_id for order_id, email in rows if email not in emailed]


def by_substring(conn, deliveries):
    """The order number found anywhere in a subject: 9813 is 'in' #98130."""
    return [order_id for order_id in order_ids(conn) if not any(str(order_id) in d.subject for d in deliveries)]


def by_counting(conn, deliveries):
    """As many receipts missing as orders outnumber deliveries: the newest ones, presumably."""
    ids = order_ids(conn)
    return ids[len(deliveries):]


def as_a_set(conn, deliveries):
    received = {int(m.group(1)) for d in deliveries if (m := re.search(r"order #(\d+)$", d.subject))}
    return set(order_ids(conn)) - received


def test_matching_receipts_by_email_address_misses_a_customers_second_order():
    report = run_check("01.receipts_lost", receipts_lost=by_email_address)
    assert_fails_with(report, "although its customer got a receipt for another order")
    assert "a customer can have several orders" in report.render()


def test_finding_the_number_as_a_substring_is_fooled_by_another_orders_number():
    report = run_check("01.receipts_lost", receipts_lost=by_substring)
    assert failed(report) == ["is not fooled by a duplicate receipt, a newsletter or another order's number"], \
        report.render()


def test_counting_deliveries_is_fooled_by_duplicates_and_newsletters():
    report = run_check("01.receipts_lost", receipts_lost=by_counting)
    assert_fails_with(report, "is not fooled by a duplicate receipt")


def test_a_set_is_not_the_list_asked_for():
    report = run_check("01.receipts_lost", receipts_lost=as_a_set)
    assert failed(report) == ["returns a list (no orders, no deliveries: [])"], report.render()


def test_the_course_function_passes():
    assert run_check("01.receipts_lost", receipts_lost=tiffin.orders_without_a_receipt).passed


# -- 01.lose_a_receipt: real processes, a few seconds each -----------------------------------------------


def lose_with(deploy_by="terminate", crash_by="kill", restore_after_refusal=True, restore=True, return_id=True):
    def lose_a_receipt(app, provider, how):
        if how == "provider_error":
            provider.configure(down=True)
        order = app.place_order(1, total_cents=1250)
        if how == "deploy":
            getattr(app, deploy_by)()
        elif how == "crash":
            getattr(app, crash_by)()
        elif restore_after_refusal:
            processes.wait_until(provider.requests, timeout=30)
            if restore:
                provider.healthy()
        else:
            provider.healthy()  # too soon: the receipt is still rendering, and will go through
        return order["id"] if return_id else order

    return lose_a_receipt


@pytest.mark.slow
def test_a_deploy_by_sigkill_is_a_crash_not_a_deploy():
    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_with(deploy_by="kill"))
    assert failed(report) == ["deploy: the app was stopped with SIGTERM"], report.render()
    assert "exit code -9 (SIGKILL)" in report.render()


@pytest.mark.slow
def test_a_crash_by_sigterm_is_a_deploy_not_a_crash():
    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_with(crash_by="terminate"))
    assert failed(report) == ["crash: the app was stopped with SIGKILL"], report.render()


@pytest.mark.slow
def test_leaving_the_provider_down_loses_the_next_customers_receipt_too():
    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_with(restore=False))
    assert failed(report) == ["provider_error: the provider works again when your function returns"], report.render()


@pytest.mark.slow
def test_returning_the_order_instead_of_its_id():
    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_with(return_id=False))
    assert_fails_with(report, "deploy: returns the id of an order the checkout accepted",
                      "crash: returns the id of an order the checkout accepted",
                      "provider_error: returns the id of an order the checkout accepted")


@pytest.mark.slow
def test_putting_the_provider_back_before_the_receipt_was_refused_loses_nothing():
    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_with(restore_after_refusal=False))
    assert_fails_with(report, "provider_error: the provider refused the receipt's send",
                      "provider_error: no receipt ever arrives")
    assert "wait until the provider has refused it" in report.render()


# -- 01.predict and 01.quiz ---------------------------------------------------------------------------


def test_predicting_that_a_graceful_stop_saves_the_receipts_fails_without_giving_the_answer():
    report = run_check("01.predict", predict_deploy="a", predict_crash="c")
    assert failed(report) == ["predict_deploy: what a deploy (SIGTERM) does to the receipts in flight"]
    assert "'c'" not in report.render()


def test_the_quiz_wants_the_durable_record_answer():
    report = run_check("01.quiz", q1="b", q2="a", q3="b", q4="c")
    assert failed(report) == ["q2: how many receipts are waiting right now, in thread mode"], report.render()


def test_receipts_lost_without_order_by_comes_back_in_storage_order():
    """Found by the mutation sweep: the check's rows were stored in id order, so a missing ORDER BY passed."""
    import re

    def receipts_lost(conn, deliveries):
        received = {int(m.group(1)) for d in deliveries
                    if (m := re.fullmatch(r"Your Tiffin receipt for order #(\d+)", d.subject))}
        return [order_id for (order_id,) in conn.execute("SELECT id FROM orders").fetchall()
                if order_id not in received]

    report = run_check("01.receipts_lost", receipts_lost=receipts_lost)
    assert failed(report) == ["lists the order ids in ascending order"], report.render()
