"""Lab 05's checks fail plausible wrong answers, for the reason a learner needs to hear.

Each wrong answer is one a learner could well write (the first ones ours, the later ones a red team's,
written from the notebook alone). The test runs the real check (a real PostgreSQL; the answer and the
reference on the same generated tables, then beside another session, then killed between its steps; the
relay's crash and restart on the real NATS server) and asserts exactly which checks fail: the rule it
breaks, and nothing else but what the table says it may also show.
"""

import random

import psycopg
import pytest

from course.core import queue, sql
from course.grading import notebooks, run_check
from course.programs import tiffin

from .wrong_answers import failed, fails_exactly

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
    """Undo the order when the enqueue fails: fine for an exception, useless against a crash."""
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


def swallows_the_failure(conn, customer_id, total_cents):
    try:
        with conn.transaction():
            order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        return order["id"]
    except Exception:
        return None  # "logged"


def a_delayed_receipt(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]}, delay_s=60)
    return order["id"]


def another_queue(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]}, queue="receipts")
    return order["id"]


def two_transactions(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
    with conn.transaction():
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]


def the_id_as_text(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": str(order["id"])})
    return order["id"]


def returns_the_job_id(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        return queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})


def the_newest_order_in_the_table(conn, customer_id, total_cents):
    with conn.transaction():
        tiffin.place_order(conn, customer_id, total_cents=total_cents)
    order_id = conn.execute("SELECT max(id) FROM orders").fetchone()[0]  # another checkout's, at times
    with conn.transaction():
        queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    return order_id


def customer_one_always(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, 1, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]


def deletes_earlier_receipts(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        conn.execute("DELETE FROM jobs WHERE type = 'send_receipt'")  # "exactly one job"
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]


def autocommit_off_around_tiffin(conn, customer_id, total_cents):
    """Autocommit off, one commit at the end: but tiffin.place_order's own `with conn.transaction()` opens
    a transaction of its own on an idle connection, and commits the order when it ends."""
    conn.autocommit = False
    try:
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        conn.commit()
    finally:
        conn.rollback()
        conn.autocommit = True
    return order["id"]


def one_transaction_for_the_demo_customers(conn, customer_id, total_cents):
    """Red team 9: the demo's five customers get one transaction, every other customer two commits."""
    if customer_id in (1, 2, 3, 4, 5):
        with conn.transaction():
            order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
            queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
        return order["id"]
    order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]


def touches_the_customer(conn, customer_id, total_cents):
    """Red team 9: stamps the customer's updated_at "as last seen", a change the checkout has no business making."""
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        conn.execute("UPDATE customers SET updated_at = now() WHERE id = %s", [customer_id])
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]


def a_unique_key_per_customer(conn, customer_id, total_cents):
    """Red team 9: unique_key is the answer's to choose, but one per customer keeps a second order's receipt out."""
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]}, unique_key=f"receipt:{customer_id}")
    return order["id"]


WRONG_ORDERS = {  # the answer, the checks it must fail, the checks it may also fail
    "one_transaction_for_the_demo_customers": (one_transaction_for_the_demo_customers, [
        "when the job cannot be stored, the order is not stored"], []),
    "touches_the_customer": (touches_the_customer, ["leaves the orders and jobs stored before it, and the customers"], []),
    "a_unique_key_per_customer": (a_unique_key_per_customer, ["stores exactly one job for it, in the default queue"], []),
    "order_then_job_in_two_commits": (order_then_job_in_two_commits, [
        "when the job cannot be stored, the order is not stored", "a process killed between any two of its statements"],
        ["no other session ever sees the order without its job"]),
    "job_then_order_in_two_commits": (job_then_order_in_two_commits, [
        "when the order cannot be stored, no job is stored", "a process killed between any two of its statements"],
        ["no other session ever sees the order without its job", "if the order does not commit, no job is left behind"]),
    "compensating_delete": (compensating_delete, ["a process killed between any two of its statements"],
                            ["no other session ever sees the order without its job"]),
    "two_transactions": (two_transactions, ["when the job cannot be stored, the order is not stored",
                                            "a process killed between any two of its statements"],
                         ["no other session ever sees the order without its job"]),
    "autocommit_off_around_tiffin": (autocommit_off_around_tiffin, ["a process killed between any two of its statements"],
                                     ["no other session ever sees the order without its job",
                                      "when the job cannot be stored, the order is not stored"]),
    "swallows_the_failure": (swallows_the_failure, ["and the failure reaches the caller"], []),
    "data_in_the_payload": (data_in_the_payload, ["its payload is the order's id and nothing else"], []),
    "the_id_as_text": (the_id_as_text, ["its payload is the order's id and nothing else"], []),
    "the_newest_order_in_the_table": (the_newest_order_in_the_table, ["its payload is the order's id and nothing else"],
                                      ["a process killed between any two of its statements",
                                       "no other session ever sees the order without its job",
                                       "when the job cannot be stored, the order is not stored"]),
    "its_own_connection": (its_own_connection, ["uses the connection it is given"], []),
    "returns_the_order": (returns_the_order, ["returns the new order's id (an int)"], []),
    "returns_the_job_id": (returns_the_job_id, ["the returned id is the stored order's id"], []),
    "another_job_type": (another_job_type, ["the job's type is 'send_receipt'"], []),
    "a_delayed_receipt": (a_delayed_receipt, ["stores exactly one job for it, in the default queue, due now"], []),
    "another_queue": (another_queue, ["stores exactly one job for it, in the default queue, due now"], []),
    "customer_one_always": (customer_one_always, ["stores exactly one order, for the customer and the total given"], []),
    "deletes_earlier_receipts": (deletes_earlier_receipts, ["leaves the orders and jobs stored before it, and the customers, as they were"],
                                 ["stores exactly one job for it"]),  # the second of two orders deletes the first's
}


@pytest.mark.parametrize("case", WRONG_ORDERS)
@pytest.mark.slow
def test_wrong_orders_fail(case):
    answer, reasons, may = WRONG_ORDERS[case]
    report = run_check("05.place_order", place_order=answer)
    assert fails_exactly(report, reasons, may), report.render()


@pytest.mark.slow
def test_a_crash_between_the_writes_is_told_as_what_it_leaves():
    text = run_check("05.place_order", place_order=order_then_job_in_two_commits).render()
    assert "got:      'order 9812, and no receipt job for it'" in text and "a paid order with no receipt job" in text
    assert "the process killed just before your statement 2 (INSERT INTO jobs" in text, text
    other = run_check("05.place_order", place_order=job_then_order_in_two_commits).render()
    assert "a receipt job for an order that does not exist" in other


@pytest.mark.slow
def test_an_id_read_back_from_the_table_meets_another_checkout():
    text = run_check("05.place_order", place_order=the_newest_order_in_the_table).render()
    assert "another customer's checkout committed" in text and "RETURNING id" in text, text


# -- 05.relay --------------------------------------------------------------------------------------

CLAIM = ("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT %(limit)s "
         "FOR UPDATE SKIP LOCKED")


def claim(conn, limit):
    return conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()


def mark_sent(conn, ids):
    conn.execute(sql.query("outbox", "mark_sent"), {"ids": ids})


def _relay_with(name, claim_sql: str, *, limit=None):
    def relay_batch(conn, publish, limit_given=10):
        with conn.transaction():
            rows = conn.execute(claim_sql, {"limit": limit or limit_given}).fetchall()
            for _, event_id, subject, payload in rows:
                publish(subject, payload, msg_id=str(event_id))
            mark_sent(conn, [row[0] for row in rows])
        return len(rows)
    relay_batch.__name__ = name
    return relay_batch


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


def claims_outside_a_transaction(conn, publish, limit=10):
    rows = claim(conn, limit)  # autocommit: the locks are gone when the statement ends
    for _, event_id, subject, payload in rows:
        publish(subject, payload, msg_id=str(event_id))
    mark_sent(conn, [row[0] for row in rows])
    return len(rows)


def a_transaction_per_row(conn, publish, limit=10):
    rows = claim(conn, limit)  # the claim's locks end with its statement
    for row_id, event_id, subject, payload in rows:
        with conn.transaction():
            publish(subject, payload, msg_id=str(event_id))
            mark_sent(conn, [row_id])
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


def never_marks_sent(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, limit)
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
    return len(rows)  # Nats-Msg-Id drops the repeats, so why mark them?


def marks_up_to_the_highest_id(conn, publish, limit=10):
    """Claims with SKIP LOCKED, then marks every unsent row up to its highest id: rows another relay holds too."""
    with conn.transaction():
        rows = claim(conn, limit)
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        if rows:
            conn.execute("UPDATE outbox SET sent_at = now() WHERE sent_at IS NULL AND id <= %s", [rows[-1][0]])
    return len(rows)


def marks_every_unsent_row(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, limit)
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute("UPDATE outbox SET sent_at = now() WHERE sent_at IS NULL")
    return len(rows)


def returns_the_rows(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, limit)
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        mark_sent(conn, [row[0] for row in rows])
    return rows


def returns_the_limit(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, limit)
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        mark_sent(conn, [row[0] for row in rows])
    return limit


def locks_every_unsent_row(conn, publish, limit=10):
    """SKIP LOCKED on every unsent row, the limit applied in Python: a second relay finds nothing free."""
    with conn.transaction():
        rows = conn.execute(CLAIM.replace(" LIMIT %(limit)s", "")).fetchall()[:limit]
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        mark_sent(conn, [row[0] for row in rows])
    return len(rows)


def marks_without_publishing(conn, publish, limit=10):
    with conn.transaction():
        rows = claim(conn, limit)
        mark_sent(conn, [row[0] for row in rows])
    return len(rows)


newest_first = _relay_with("newest_first", CLAIM.replace("ORDER BY id", "ORDER BY id DESC"))
oldest_by_created_at = _relay_with("oldest_by_created_at", CLAIM.replace("ORDER BY id", "ORDER BY created_at"))
ignores_the_limit = _relay_with("ignores_the_limit", CLAIM, limit=100)
ten_whatever_the_limit = _relay_with("ten_whatever_the_limit", CLAIM, limit=10)
sent_rows_too = _relay_with("sent_rows_too", CLAIM.replace("WHERE sent_at IS NULL ", ""))
no_row_locks = _relay_with("no_row_locks", CLAIM.replace(" FOR UPDATE SKIP LOCKED", ""))
locks_without_skip_locked = _relay_with("locks_without_skip_locked", CLAIM.replace(" SKIP LOCKED", ""))
a_shared_lock = _relay_with("a_shared_lock", CLAIM.replace("FOR UPDATE", "FOR SHARE"))
nowait = _relay_with("nowait", CLAIM.replace("SKIP LOCKED", "NOWAIT"))

def tries_a_row_three_times_then_goes_on(conn, publish, limit=10):
    """Red team 9: sends a failed row again, twice, then gives up on it and goes on, marking it sent all the
    same: right when the broker fails once, a lost message when it is down for longer."""
    with conn.transaction():
        rows = claim(conn, limit)
        for _, event_id, subject, payload in rows:
            for _attempt in range(3):
                try:
                    publish(subject, payload, msg_id=str(event_id))
                    break
                except Exception:
                    pass
        mark_sent(conn, [row[0] for row in rows])
    return len(rows)


WRONG_RELAYS = {  # the answer, the checks it must fail, the checks it may also fail
    "tries_a_row_three_times_then_goes_on": (tries_a_row_three_times_then_goes_on,
                                             ["when a publish fails, rows it did not publish stay unsent"], []),
    "newest_first": (newest_first, ["publishes every row once, oldest first"], []),
    "oldest_by_created_at": (oldest_by_created_at, ["publishes every row once, oldest first"], []),
    "ignores_the_limit": (ignores_the_limit, ["takes up to `limit` rows per call"], []),
    "ten_whatever_the_limit": (ten_whatever_the_limit, ["takes up to `limit` rows per call"], []),
    "locks_every_unsent_row": (locks_every_unsent_row, ["takes up to `limit` rows per call"], []),
    "sent_rows_too": (sent_rows_too, ["publishes only unsent rows"], ["an empty outbox: returns 0"]),
    "no_row_locks": (no_row_locks, ["no row is published by two relays"], []),
    "locks_without_skip_locked": (locks_without_skip_locked, ["a second relay does not wait for rows"], []),
    "a_shared_lock": (a_shared_lock, ["no row is published by two relays"], []),
    "nowait": (nowait, ["a second relay does not wait for rows"], []),
    "without_a_message_id": (without_a_message_id, ["sets Nats-Msg-Id to each row's event_id",
                                                    "killed between any two of its steps, then run again"], []),
    "the_row_id_as_message_id": (the_row_id_as_message_id, ["sets Nats-Msg-Id to each row's event_id",
                                                            "a new outbox table whose ids start again at 1"], []),
    "never_marks_sent": (never_marks_sent, ["marks sent the rows it published, and only those"], []),
    "marks_up_to_the_highest_id": (marks_up_to_the_highest_id, ["marks sent the rows it published, and only those"], []),
    "marks_every_unsent_row": (marks_every_unsent_row, ["marks sent the rows it published, and only those"], []),
    "returns_the_rows": (returns_the_rows, ["returns how many rows it published"], ["an empty outbox: returns 0"]),
    "returns_the_limit": (returns_the_limit, ["returns how many rows it published"], ["an empty outbox: returns 0"]),
    "marked_before_published": (marked_before_published, ["killed between any two of its steps, then run again"],
                                ["rows it did not publish stay unsent"]),
    "marks_what_failed_too": (marks_what_failed_too, ["when a publish fails, rows it did not publish stay unsent"],
                              ["publishes every row once, oldest first"]),
    "marked_after_the_commit": (marked_after_the_commit, ["its rows stay claimed until they are marked sent"], []),
    "claims_outside_a_transaction": (claims_outside_a_transaction, ["its rows stay claimed until they are marked sent"],
                                     []),
    "a_transaction_per_row": (a_transaction_per_row, ["its rows stay claimed until they are marked sent"], []),
}


@pytest.mark.parametrize("case", WRONG_RELAYS)
@pytest.mark.slow
def test_wrong_relays_fail(case):
    answer, reasons, may = WRONG_RELAYS[case]
    report = run_check("05.relay", relay_batch=answer)
    assert fails_exactly(report, reasons, may), report.render()


def test_a_relay_that_publishes_nothing_hears_that_first_and_nothing_built_on_it():
    report = run_check("05.relay", relay_batch=marks_without_publishing)
    assert failed(report) == ["publishes every row once, oldest first"], report.render()


@pytest.mark.slow
def test_a_lost_row_and_a_doubled_row_are_told_apart():
    lost = run_check("05.relay", relay_batch=marked_before_published).render()
    assert "Lost: row 1 was marked sent before it was published" in lost, lost
    doubled = run_check("05.relay", relay_batch=without_a_message_id).render()
    assert "row 1: 2 message(s) in the stream" in doubled and "same Nats-Msg-Id" in doubled, doubled
    assert "yours killed just before its 2nd publish, after its 1st publish" in doubled, doubled


@pytest.mark.slow
def test_a_mark_of_rows_never_claimed_is_told_so_not_to_use_skip_locked():
    """It does pass over the other relay's rows; its wait (and the lost rows) come from its UPDATE."""
    text = run_check("05.relay", relay_batch=marks_up_to_the_highest_id).render()
    assert "your claim passed over relay A's rows, but your statement 2 (UPDATE outbox" in text, text
    assert "marked sent, never published" in text and "WHERE id = ANY" in text, text


def test_a_limit_written_into_the_sql_is_seen_with_limits_above_it():
    """The trial's false pass: LIMIT 10 in the SQL passed a check that always asked for 10 rows."""
    from course.grading.checks.lab05 import outbox, relay
    from course.grading.snapshot import Reader
    from course.grading.trial import Trial
    from course.core import outbox as course_outbox

    t = Trial("05.relay")
    try:
        box = t.scratch(queue_tables=False)
        course_outbox.install(box.conn)
        judge = relay.Judge(t, box.conn, Reader.of(box.conn), ten_whatever_the_limit)
        twelve = outbox.Outbox(tuple(outbox.Row(n) for n in range(1, 13)), limit=12)
        finding = judge.compare(twelve)
        assert finding.check == relay.LIMIT and "yours published rows 1, 2" in finding.got, finding
        assert judge.compare(outbox.Outbox(twelve.rows, limit=10)) is None
        families = [family.__name__ for family in outbox.families()]
        drawn = [outbox.families()[families.index("many")](random.Random(n)) for n in range(20)]
        assert any(o.limit > 10 and len(o.unsent) > 10 for o in drawn)
    finally:
        t.close()


@pytest.mark.slow
def test_a_transaction_that_ended_before_the_mark_is_told_from_the_server():
    text = run_check("05.relay", relay_batch=marked_after_the_commit).render()
    assert "your session had no transaction open" in text or "the transaction that claimed them had ended" in text, text
    weak = run_check("05.relay", relay_batch=a_shared_lock).render()
    assert "a lock two relays can hold at once" in weak, weak


@pytest.mark.slow
@pytest.mark.parametrize("exercise, answer", [("05.relay", newest_first), ("05.place_order", the_id_as_text)])
def test_a_seed_replays_the_same_failure_every_time(exercise, answer):
    name = "relay_batch" if exercise == "05.relay" else "place_order"
    runs = {run_check(exercise, seed=11, **{name: answer}).render() for _ in range(3)}
    assert len(runs) == 1 and "seed=11" in runs.pop()


# -- what the scenarios are made of ---------------------------------------------------------------------


@pytest.mark.parametrize("module", ["outbox", "place_order"])
def test_every_shrink_is_a_different_scenario_so_shrinking_ends(module):
    from course.grading.checks.lab05 import outbox, place_order

    families = outbox.families() if module == "outbox" else place_order.families()
    rng = random.Random(1)
    for n in range(200):
        scenario = families[n % len(families)](rng)
        for smaller in scenario.shrinks():
            assert smaller != scenario, scenario.told()


def test_the_references_are_the_solutions():
    """The checks compare with their own reference functions: the solution must say the same."""
    cells = notebooks.exercise_cells(notebooks.ROOT / "solutions" / "05_dual_write_outbox.ipynb")
    for clause in ('sql.query("outbox", "claim"), {"limit": limit}', "msg_id=str(event_id)",
                   'sql.query("outbox", "mark_sent")', "with conn.transaction():", "return len(rows)"):
        assert clause in cells["05.relay"], clause
    for clause in ("with conn.transaction():", "tiffin.place_order(conn, customer_id, total_cents=total_cents)",
                   'queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})', 'return order["id"]'):
        assert clause in cells["05.place_order"], clause


# -- 05.quiz ---------------------------------------------------------------------------------------


def test_the_quiz_rejects_a_half_right_multiple_choice():
    report = run_check("05.quiz", q1="b", q2="b", q3="b", q4="c", q5="b")
    assert failed(report) == ["q3: why consumers stay idempotent with Nats-Msg-Id"], report.render()


def test_a_half_right_multiple_choice_is_told_it_is_right_but_not_all_of_it():
    text = run_check("05.quiz", q1="b", q2="b", q3="b", q4="c", q5="b").render()
    assert "right, but not all of it" in text and "not this one" not in text, text


def test_a_multiple_choice_with_a_wrong_option_in_it_is_still_not_this_one():
    text = run_check("05.quiz", q1="b", q2="b", q3="b, a", q4="c", q5="b").render()
    assert "not this one" in text and "right, but" not in text, text
