"""Lab 05's checks pass correct answers written unlike the reference (issue 22): other SQL, one statement
for two writes, the job first, a claim that marks as it locks, BEGIN and COMMIT by hand, a relay that stops
at a failed publish and keeps what went out, one that sends that row again; and the answers the hints
spell out."""

import json

import pytest

from course.core import queue, sql
from course.grading import run_check
from course.programs import tiffin

# -- 05.place_order --------------------------------------------------------------------------------


def order_hints_spelled_out(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]


def the_job_first(conn, customer_id, total_cents):
    """The order's id taken from its sequence, the job written before the order: one transaction all the same."""
    with conn.transaction():
        order_id = conn.execute("SELECT nextval(pg_get_serial_sequence('orders', 'id'))").fetchone()[0]
        queue.enqueue(conn, "send_receipt", {"order_id": order_id}, notify=False)
        conn.execute("INSERT INTO orders (id, customer_id, total_cents) VALUES (%s, %s, %s)",
                     [order_id, customer_id, total_cents])
    return order_id


def one_statement(conn, customer_id, total_cents):
    """Both writes in one statement: nothing can come between them."""
    return conn.execute(
        "WITH o AS (INSERT INTO orders (customer_id, total_cents) VALUES (%s, %s) RETURNING id) "
        "INSERT INTO jobs (type, payload) SELECT 'send_receipt', jsonb_build_object('order_id', id) FROM o "
        "RETURNING (payload->>'order_id')::bigint", [customer_id, total_cents]).fetchone()[0]


def a_savepoint_of_its_own(conn, customer_id, total_cents):
    """Its own transaction object, a priority and a unique key of its own: what the rules leave free."""
    transaction = conn.transaction()
    with transaction:
        order_id = conn.execute("INSERT INTO orders (customer_id, total_cents) VALUES (%(c)s, %(t)s) RETURNING id",
                                {"c": customer_id, "t": total_cents}).fetchone()[0]
        queue.enqueue(conn, "send_receipt", {"order_id": order_id}, priority=3, unique_key=f"receipt:{order_id}")
    return int(order_id)


def the_id_from_currval(conn, customer_id, total_cents):
    """Red team 9: the order's id read back with currval, which is this session's own: no other checkout's."""
    with conn.transaction():
        tiffin.place_order(conn, customer_id, total_cents=total_cents)
        (order_id,) = conn.execute("SELECT currval(pg_get_serial_sequence('orders', 'id'))").fetchone()
        queue.enqueue(conn, "send_receipt", {"order_id": order_id})
        return order_id


@pytest.mark.parametrize("place_order", [order_hints_spelled_out, the_job_first, one_statement,
                                         a_savepoint_of_its_own, the_id_from_currval], ids=lambda answer: answer.__name__)
@pytest.mark.slow
def test_correct_orders_pass(place_order):
    report = run_check("05.place_order", place_order=place_order)
    assert report.passed, report.render()


# -- 05.relay --------------------------------------------------------------------------------------

CLAIM = ("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT %(limit)s "
         "FOR UPDATE SKIP LOCKED")


def relay_hints_spelled_out(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)


def marks_as_it_claims(conn, publish, limit=10):
    """Marked sent in the claiming statement, published, then committed: a failure or a crash rolls the marks
    back with everything else. The rows come back from UPDATE in no order: sorted here."""
    with conn.transaction():
        rows = conn.execute("UPDATE outbox SET sent_at = now() WHERE id IN (SELECT id FROM outbox WHERE sent_at IS NULL "
                            "ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED) RETURNING id, event_id, subject, payload",
                            [limit]).fetchall()
        for _, event_id, subject, payload in sorted(rows):
            publish(subject, payload, msg_id=event_id)  # the uuid itself: the broker sends str(msg_id)
    return len(rows)


def begin_and_commit_by_hand(conn, publish, limit=10):
    """BEGIN and COMMIT as statements, the payload sent as JSON text, the marks one row at a time."""
    conn.execute("BEGIN")
    try:
        cursor = conn.cursor()
        rows = cursor.execute(CLAIM, {"limit": limit}).fetchall()
        for _, event_id, subject, payload in rows:
            publish(subject, json.dumps(payload), str(event_id))
        cursor.executemany("UPDATE outbox SET sent_at = now() WHERE id = %s", [(row[0],) for row in rows])
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(rows)


def stops_at_a_failure_and_keeps_what_went(conn, publish, limit=10):
    """A failed publish ends the batch; the rows that went out are marked and counted (the rules leave it free)."""
    went = []
    with conn.transaction():
        for row_id, event_id, subject, payload in conn.execute(CLAIM, {"limit": limit}).fetchall():
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception:
                break
            went.append(row_id)
        conn.execute("UPDATE outbox SET sent_at = clock_timestamp() WHERE id = ANY(%s)", [went])
    return len(went)


def sends_a_failed_row_again(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(CLAIM.replace("FOR UPDATE", "FOR NO KEY UPDATE"), {"limit": limit}).fetchall()
        for _, event_id, subject, payload in rows:
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception:
                publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)


@pytest.mark.parametrize("relay_batch", [relay_hints_spelled_out, marks_as_it_claims, begin_and_commit_by_hand,
                                         stops_at_a_failure_and_keeps_what_went, sends_a_failed_row_again],
                         ids=lambda answer: answer.__name__)
@pytest.mark.slow
def test_correct_relays_pass(relay_batch):
    report = run_check("05.relay", relay_batch=relay_batch)
    assert report.passed, report.render()
