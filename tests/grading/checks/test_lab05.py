"""Lab 05's checks fail plausible wrong answers, for the reason a learner needs to hear.

Each wrong answer below is one a learner could well write. The test runs the real check on it (real
PostgreSQL, real child processes SIGKILLed, the real NATS server) and asserts which checks fail.
"""

import psycopg
import pytest

from course.core import queue, sql
from course.grading import run_check
from course.programs import tiffin

from .wrong_answers import assert_fails_with, failed


# -- 05.place_order --------------------------------------------------------------------------------


def order_then_job_in_two_commits(conn, customer_id, total_cents):
    order = tiffin.place_order(conn, customer_id, total_cents=total_cents)  # commits: conn is autocommit
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]


def job_then_order_in_two_commits(conn, customer_id, total_cents):
    order_id = conn.execute("SELECT nextval(pg_get_serial_sequence('orders', 'id'))").fetchone()[0]
    queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    conn.execute("INSERT INTO orders (id, customer_id, total_cents) VALUES (%s, %s, %s)",
                 [order_id, customer_id, total_cents])
    return order_id


def compensating_delete(conn, customer_id, total_cents):
    """Undo the order when the enqueue fails: fine for an exception, useless against a SIGKILL."""
    order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
    try:
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    except Exception:
        conn.execute("DELETE FROM orders WHERE id = %s", [order["id"]])
        raise
    return order["id"]


def data_in_the_payload(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"], "total_cents": total_cents})
    return order["id"]


def its_own_connection(conn, customer_id, total_cents):
    with psycopg.connect(conn.info.dsn, autocommit=True) as own, own.transaction():
        order = tiffin.place_order(own, customer_id, total_cents=total_cents)
        queue.enqueue(own, "send_receipt", {"order_id": order["id"]})
    return order["id"]


def another_job_type(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "receipt", {"order_id": order["id"]})
    return order["id"]


def returns_the_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order


@pytest.mark.parametrize("place_order, reasons", [
    (order_then_job_in_two_commits, ["when the job cannot be stored, the order is not stored", "SIGKILLed between the two writes"]),
    (job_then_order_in_two_commits, ["when the order cannot be stored, no job is stored", "SIGKILLed between the two writes"]),
    (compensating_delete, ["SIGKILLed between the two writes"]),
    (data_in_the_payload, ["its payload is the order's id and nothing else"]),
    (its_own_connection, ["uses the connection it is given"]),
    (returns_the_order, ["returns the new order's id"]),
    (another_job_type, ["the job's type is 'send_receipt'"]),
], ids=lambda value: getattr(value, "__name__", ""))
@pytest.mark.slow
def test_place_order_wrong_answers_fail(place_order, reasons):
    report = run_check("05.place_order", place_order=place_order)
    assert_fails_with(report, *reasons)


@pytest.mark.slow
def test_a_crash_leaves_the_paid_order_and_says_so():
    text = run_check("05.place_order", place_order=order_then_job_in_two_commits).render()
    assert "got:      '1 order(s), 0 job(s)'" in text
    assert "a paid order with no receipt job" in text
    assert "in a child process, SIGKILLed while its second write was on its way" in text


@pytest.mark.slow
def test_the_other_way_round_leaves_a_job_for_an_order_that_does_not_exist():
    text = run_check("05.place_order", place_order=job_then_order_in_two_commits).render()
    assert "a receipt job for an order that does not exist" in text


# -- 05.relay --------------------------------------------------------------------------------------


def claim(conn, limit):
    return conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()


def mark_sent(conn, ids):
    conn.execute(sql.query("outbox", "mark_sent"), {"ids": ids})


def without_a_message_id(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, limit)
        for _, _, subject, payload in rows:
            publish(subject, payload)
        mark_sent(conn, [row[0] for row in rows])
    return len(rows)


def the_row_id_as_message_id(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, limit)
        for row_id, _, subject, payload in rows:
            publish(subject, payload, msg_id=str(row_id))
        mark_sent(conn, [row[0] for row in rows])
    return len(rows)


def marked_before_published(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, limit)
        mark_sent(conn, [row[0] for row in rows])
    for _, event_id, subject, payload in rows:  # after the commit: a crash here loses the rest
        publish(subject, payload, msg_id=str(event_id))
    return len(rows)


def marked_after_the_commit(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, limit)
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
    mark_sent(conn, [row[0] for row in rows])  # after the commit: the rows are unlocked and still unsent
    return len(rows)


def _relay_with(claim_sql: str):
    def relay_batch(conn, publish, limit=10):
        with conn.transaction():
            rows = conn.execute(claim_sql, {"limit": limit}).fetchall()
            for _, event_id, subject, payload in rows:
                publish(subject, payload, msg_id=str(event_id))
            mark_sent(conn, [row[0] for row in rows])
        return len(rows)
    return relay_batch


no_row_locks = _relay_with(
    "SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT %(limit)s")
no_row_locks.__name__ = "no_row_locks"
locks_without_skip_locked = _relay_with(
    "SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT %(limit)s FOR UPDATE")
locks_without_skip_locked.__name__ = "locks_without_skip_locked"


def claims_outside_a_transaction(conn, publish, limit=10):
    rows = claim(conn, limit)  # autocommit: the locks are gone when the statement ends
    for _, event_id, subject, payload in rows:
        publish(subject, payload, msg_id=str(event_id))
    mark_sent(conn, [row[0] for row in rows])
    return len(rows)


def ignores_the_limit(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, 100)
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        mark_sent(conn, [row[0] for row in rows])
    return len(rows)


def marks_what_failed_too(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, limit)
        for _, event_id, subject, payload in rows:
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception:
                pass  # "it will be fine"
        mark_sent(conn, [row[0] for row in rows])
    return len(rows)


def newest_first(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
                            "ORDER BY id DESC LIMIT %(limit)s FOR UPDATE SKIP LOCKED", {"limit": limit}).fetchall()
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        mark_sent(conn, [row[0] for row in rows])
    return len(rows)


def never_marks_sent(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, limit)
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
    return len(rows)  # Nats-Msg-Id drops the repeats, so why mark them?


def returns_the_rows(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, limit)
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        mark_sent(conn, [row[0] for row in rows])
    return rows


def marks_without_publishing(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, limit)
        mark_sent(conn, [row[0] for row in rows])
    return len(rows)


def test_a_relay_that_publishes_nothing_hears_that_first_and_nothing_built_on_it():
    report = run_check("05.relay", relay_batch=marks_without_publishing)
    assert "publishes every row once, oldest first" in failed(report), report.render()
    assert not any("SIGKILLed" in name or "second relay" in name for name in failed(report)), report.render()


@pytest.mark.parametrize("relay_batch, reasons", [
    (without_a_message_id, ["sets Nats-Msg-Id", "each row is in the stream once"]),
    (the_row_id_as_message_id, ["sets Nats-Msg-Id", "ids start again at 1"]),
    (marked_before_published, ["each row is in the stream once"]),
    (marked_after_the_commit, ["relay A held just before it marks its rows sent: a second relay publishes none"]),
    (no_row_locks, ["does not publish the rows the first one holds"]),
    (locks_without_skip_locked, ["does not wait for rows the first one holds"]),
    (claims_outside_a_transaction, ["does not publish the rows the first one holds"]),
    (ignores_the_limit, ["takes at most `limit` rows per call"]),
    (marks_what_failed_too, ["rows it did not publish stay unsent"]),
    (newest_first, ["publishes every row once, oldest first"]),
    (never_marks_sent, ["marks the published rows sent"]),
    (returns_the_rows, ["returns how many rows it published"]),
], ids=lambda value: getattr(value, "__name__", ""))
@pytest.mark.slow
def test_relay_wrong_answers_fail(relay_batch, reasons):
    report = run_check("05.relay", relay_batch=relay_batch)
    assert_fails_with(report, *reasons)


@pytest.mark.slow
def test_a_lost_row_and_a_doubled_row_are_told_apart():
    lost = run_check("05.relay", relay_batch=marked_before_published).render()
    assert "Lost: it was marked sent before it was published" in lost
    doubled = run_check("05.relay", relay_batch=without_a_message_id).render()
    assert "is in the stream 2 time(s)" in doubled and "same Nats-Msg-Id" in doubled


@pytest.mark.slow
def test_a_mark_after_the_commit_lets_a_second_relay_publish_the_rows_again_and_says_why():
    report = run_check("05.relay", relay_batch=marked_after_the_commit)
    assert failed(report) == ["relay A held just before it marks its rows sent: a second relay publishes none of them"], \
        report.render()
    text = report.render()
    assert "published by both relays" in text and "mark the rows sent inside the transaction that claimed" in text


def test_the_quiz_rejects_a_half_right_multiple_choice():
    report = run_check("05.quiz", q1="b", q2="b", q3="b", q4="c")
    assert failed(report) == ["q3: why consumers stay idempotent with Nats-Msg-Id"], report.render()


def test_a_half_right_multiple_choice_is_told_it_is_right_but_not_all_of_it():
    text = run_check("05.quiz", q1="b", q2="b", q3="b", q4="c").render()
    assert "right, but not all of it" in text and "not this one" not in text, text


def test_a_multiple_choice_with_a_wrong_option_in_it_is_still_not_this_one():
    text = run_check("05.quiz", q1="b", q2="b", q3="b, a", q4="c").render()
    assert "not this one" in text and "right, but" not in text, text
