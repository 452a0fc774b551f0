"""Lab 01's checks fail plausible wrong answers, for the reason a learner needs to hear.

receipts_lost runs against a real PostgreSQL; lose_a_receipt against a real checkout app and a real email
provider, each in a process of its own (the check starts and stops them).
"""

import os
import re
import signal
import time

import pytest

from course.infra import processes
from course.grading import run_check
from course.programs import tiffin

from .wrong_answers import assert_fails_with, failed, fails_exactly


def order_ids(conn) -> list[int]:
    return [order_id for (order_id,) in conn.execute("SELECT id FROM orders ORDER BY id")]


# -- 01.receipts_lost ---------------------------------------------------------------------------------

RECEIPT = re.compile(r"Your Tiffin receipt for order #(\d+)")


def received(deliveries) -> set:
    return {int(m.group(1)) for d in deliveries if (m := RECEIPT.fullmatch(d.subject))}


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
    return set(order_ids(conn)) - received(deliveries)


def without_order_by(conn, deliveries):
    """Found by the mutation sweep: rows stored in id order let a missing ORDER BY pass."""
    return [order_id for (order_id,) in conn.execute("SELECT id FROM orders") if order_id not in received(deliveries)]


def largest_first(conn, deliveries):
    return sorted(set(order_ids(conn)) - received(deliveries), reverse=True)


def split_on_the_hash(conn, deliveries):
    """Any subject with a '#': a newsletter numbered like an order counts as its receipt."""
    got = {int(d.subject.split("#")[1].split()[0]) for d in deliveries if "#" in d.subject}
    return [order_id for order_id in order_ids(conn) if order_id not in got]


def any_number_in_the_subject(conn, deliveries):
    got = {int(n) for d in deliveries for n in re.findall(r"\d+", d.subject)}
    return [order_id for order_id in order_ids(conn) if order_id not in got]


def only_orders_still_placed(conn, deliveries):
    """A cancelled or delivered order 'needs no receipt': but it is an order, and its receipt is lost."""
    rows = conn.execute("SELECT id FROM orders WHERE status = 'placed' ORDER BY id")
    return [order_id for (order_id,) in rows if order_id not in received(deliveries)]


def the_first_page(conn, deliveries):
    rows = conn.execute("SELECT id FROM orders ORDER BY id LIMIT 20")
    return [order_id for (order_id,) in rows if order_id not in received(deliveries)]


def the_first_fifty(conn, deliveries):
    """Red team (issue 22): a LIMIT above the check's old largest table (40 orders) passed."""
    rows = conn.execute("SELECT id FROM orders ORDER BY id LIMIT 50")
    return [order_id for (order_id,) in rows if order_id not in received(deliveries)]


def the_receipts_numbers(conn, deliveries):
    """The numbers of the receipts nobody ordered, instead of the orders nobody got a receipt for."""
    return sorted(received(deliveries) - set(order_ids(conn)))


def rows_not_ids(conn, deliveries):
    return [row for row in conn.execute("SELECT id FROM orders ORDER BY id").fetchall()
            if row[0] not in received(deliveries)]


def ids_as_text(conn, deliveries):
    return [str(order_id) for order_id in order_ids(conn) if order_id not in received(deliveries)]


def only_the_last_hour(conn, deliveries):
    """Round f3 (rl_w08): a monitoring habit, created_at > now() - 1 hour: every order the check stored
    was minutes old, so the older orders it leaves out were never there."""
    rows = conn.execute("SELECT id FROM orders WHERE created_at > now() - interval '1 hour' ORDER BY id")
    return [order_id for (order_id,) in rows if order_id not in received(deliveries)]


def the_newest_five_hundred(conn, deliveries):
    """Round f3 (rl_w15): "the rest are old": correct on every table of a few hundred orders."""
    rows = conn.execute("SELECT id FROM (SELECT id FROM orders ORDER BY id DESC LIMIT 500) AS recent ORDER BY id")
    return [order_id for (order_id,) in rows if order_id not in received(deliveries)]


def to_the_current_email_too(conn, deliveries):
    """Round f3 (rl_w14): a receipt counts only if it went to the customer's email as it is now: a customer
    who changed email since is reported lost."""
    got = {(int(m.group(1)), d.to) for d in deliveries if (m := RECEIPT.fullmatch(d.subject))}
    rows = conn.execute("SELECT o.id, c.email FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id")
    return [order_id for order_id, email in rows if (order_id, email) not in got]



WRONG_LISTS = {  # the wrong answer, the checks it must fail, the checks it may fail too
    "by_email_address": (by_email_address, ["lists each order whose receipt never came"],
                         ["is not fooled by a duplicate receipt"]),
    "by_substring": (by_substring, ["is not fooled by a duplicate receipt"], []),
    "by_counting": (by_counting, ["lists each order whose receipt never came"],
                    ["is not fooled by a duplicate receipt"]),
    "as_a_set": (as_a_set, ["returns a list of order ids"], []),
    "without_order_by": (without_order_by, ["lists the order ids in ascending order"], []),
    "largest_first": (largest_first, ["lists the order ids in ascending order"], []),
    "split_on_the_hash": (split_on_the_hash, ["is not fooled by a duplicate receipt"], []),
    "any_number_in_the_subject": (any_number_in_the_subject, ["is not fooled by a duplicate receipt"], []),
    "only_orders_still_placed": (only_orders_still_placed, ["lists each order whose receipt never came"], []),
    "the_first_page": (the_first_page, ["lists each order whose receipt never came"], []),
    "the_first_fifty": (the_first_fifty, ["lists each order whose receipt never came"], []),
    "the_receipts_numbers": (the_receipts_numbers, ["lists each order whose receipt never came"],
                             ["is not fooled by a duplicate receipt"]),
    "rows_not_ids": (rows_not_ids, ["returns a list of order ids"], []),
    "ids_as_text": (ids_as_text, ["returns a list of order ids"], []),
    "only_the_last_hour": (only_the_last_hour, ["lists each order whose receipt never came"], []),
    "the_newest_five_hundred": (the_newest_five_hundred, ["lists each order whose receipt never came"], []),
    "to_the_current_email_too": (to_the_current_email_too, ["lists each order whose receipt never came"], []),
}


@pytest.mark.parametrize("case", WRONG_LISTS)
def test_wrong_lists_fail(case):
    answer, must, may = WRONG_LISTS[case]
    report = run_check("01.receipts_lost", receipts_lost=answer)
    assert fails_exactly(report, must, may), report.render()


def test_matching_by_address_is_told_to_match_by_number():
    text = run_check("01.receipts_lost", receipts_lost=by_email_address).render()
    assert "not by the address" in text, text


@pytest.mark.parametrize("answer, cause", [(only_the_last_hour, "however old"),
                                           (the_newest_five_hundred, "however many"),
                                           (to_the_current_email_too, "whatever address it went to")])
def test_round_f3s_false_passes_are_told_their_cause(answer, cause):
    text = run_check("01.receipts_lost", receipts_lost=answer).render()
    assert cause in text, text


def test_a_number_inside_another_is_told_to_compare_whole_numbers():
    text = run_check("01.receipts_lost", receipts_lost=by_substring).render()
    assert "whole numbers" in text or "is not a receipt" in text, text


def test_the_course_function_passes():
    assert run_check("01.receipts_lost", receipts_lost=tiffin.orders_without_a_receipt).passed


# -- 01.lose_a_receipt: real processes, a few seconds each -----------------------------------------------


def lose_with(deploy_by="terminate", crash_by="kill", wait_for="one more request", restore=True, return_id=True,
              orders=1):
    def lose_a_receipt(app, provider, how):
        if how == "provider_error":
            seen = len(provider.requests())
            provider.configure(down=True)
        for _ in range(orders):
            order = app.place_order(1, total_cents=1250)
        if how == "deploy" and deploy_by == "ctrl-c":  # round f3 (lr_w01): SIGINT, as graceful as SIGTERM
            os.kill(app.pid, signal.SIGINT)
            processes.wait_until(lambda: not app.alive(), timeout=60)
        elif how == "deploy":
            getattr(app, deploy_by)()
        elif how == "crash":
            getattr(app, crash_by)()
        else:
            if wait_for == "one more request":  # one per order placed: every receipt refused before the restore
                processes.wait_until(lambda: len(provider.requests()) >= seen + orders, timeout=30)
            elif wait_for == "any request":  # the old reference: an earlier request satisfies it at once
                processes.wait_until(provider.requests, timeout=30)
            if restore:
                provider.healthy()
        return order["id"] if return_id else order

    return lose_a_receipt


def test_a_receipts_lost_stub_that_returns_none_passes_nothing():
    """A do-nothing answer lists nothing: no check of 01.receipts_lost may count it as passed (round f2's
    stub probe: 0 of 4, kept so)."""
    report = run_check("01.receipts_lost", seed=1, receipts_lost=lambda *a, **k: None)
    assert report.results and not any(r.passed for r in report.results), report.render()


@pytest.mark.slow
def test_a_stub_that_returns_none_passes_nothing():
    """No order, no receipt to lose: the receipt's and the provider's checks are not reached, never passed
    (a `return None` stub scored 6 of 12 in class grading: the app ran on, no receipt arrived)."""
    report = run_check("01.lose_a_receipt", lose_a_receipt=lambda app, provider, how: None)
    assert not any(r.passed for r in report.results), report.render()
    assert len(report.results) == 12 and sum(not r.reached for r in report.results) == 7, report.render()


@pytest.mark.slow
def test_a_deploy_by_sigkill_is_a_crash_not_a_deploy():
    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_with(deploy_by="kill"))
    assert failed(report) == ["deploy: the app was stopped the way a deploy stops it (SIGTERM)"], report.render()
    assert "exit code -9 (SIGKILL)" in report.render()


@pytest.mark.slow
def test_a_deploy_by_ctrl_c_is_told_a_deploy_sends_sigterm():
    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_with(deploy_by="ctrl-c"))
    assert failed(report) == ["deploy: the app was stopped the way a deploy stops it (SIGTERM)"], report.render()
    assert "after SIGINT (the app's log)" in report.render(), report.render()


@pytest.mark.slow
def test_a_crash_by_sigterm_is_a_deploy_not_a_crash():
    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_with(crash_by="terminate"))
    assert failed(report) == ["crash: the app was stopped the way a crash stops it (SIGKILL)"], report.render()


@pytest.mark.slow
def test_leaving_the_provider_down_loses_the_next_customers_receipt_too():
    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_with(restore=False))
    assert failed(report) == ["provider_error: the provider works again when your function returns"], report.render()


@pytest.mark.slow
def test_returning_the_order_instead_of_its_id():
    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_with(return_id=False))
    assert_fails_with(report, "deploy: places one order through app and returns its id",
                      "crash: places one order through app and returns its id",
                      "provider_error: places one order through app and returns its id")


@pytest.mark.slow
def test_two_orders_are_not_one():
    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_with(orders=2))
    assert fails_exactly(report, ["places one order through app and returns its id"]), report.render()


@pytest.mark.slow
def test_putting_the_provider_back_before_the_receipt_was_refused_loses_nothing():
    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_with(wait_for=None))
    assert fails_exactly(report, ["provider_error: the provider refused the receipt's send",
                                  "provider_error: no receipt ever arrives"]), report.render()
    assert "put it back only once it has refused this receipt" in report.render()


@pytest.mark.slow
def test_waiting_for_any_request_is_satisfied_by_an_earlier_one():
    """Issue 22: the old reference waited for provider.requests() to be non-empty, true at once on a provider
    that had been asked anything before; the receipt then went out."""
    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_with(wait_for="any request"))
    assert fails_exactly(report, ["provider_error: the provider refused the receipt's send",
                                  "provider_error: no receipt ever arrives"]), report.render()
    assert "you waited for a request (or a refusal) that was already there" in report.render()


@pytest.mark.slow
def test_a_failure_rate_below_one_refuses_only_by_luck():
    """Red team (issue 22): a failure rate of 0.5 passed, because the provider's seeded first draw refused."""
    def lose_a_receipt(app, provider, how):
        if how == "provider_error":
            provider.configure(failure_rate=0.5)
            order = app.place_order(1, total_cents=1250)
            time.sleep(2.5)
            provider.configure(failure_rate=0.0)
            return order["id"]
        order = app.place_order(1, total_cents=1250)
        app.terminate() if how == "deploy" else app.kill()
        return order["id"]

    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_a_receipt)
    assert fails_exactly(report, ["provider_error: the provider refused the receipt's send",
                                  "provider_error: no receipt ever arrives"]), report.render()
    assert "a failure rate below 1 refuses only some sends" in report.render(), report.render()


@pytest.mark.slow
def test_stopping_the_provider_is_not_making_it_refuse():
    def lose_a_receipt(app, provider, how):
        if how == "provider_error":
            provider.stop()
        order = app.place_order(1, total_cents=1250)
        if how == "deploy":
            app.terminate()
        elif how == "crash":
            app.kill()
        return order["id"]

    report = run_check("01.lose_a_receipt", lose_a_receipt=lose_a_receipt)
    assert fails_exactly(report, ["provider_error: the email provider is still running"]), report.render()


# -- 01.predict and 01.quiz ---------------------------------------------------------------------------


def test_predicting_that_a_graceful_stop_saves_the_receipts_fails_without_giving_the_answer():
    report = run_check("01.predict", predict_deploy="a", predict_crash="c")
    assert failed(report) == ["predict_deploy: what a deploy (SIGTERM) does to the receipts in flight"]
    assert "'c'" not in report.render()


def test_the_quiz_wants_the_durable_record_answer():
    report = run_check("01.quiz", q1="b", q2="c", q3="b", q4="c")  # "the provider finishes what the app began"
    assert failed(report) == ["q2: what the records say two seconds after a SIGKILL, in thread mode"], report.render()
