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
from psycopg.types.json import Jsonb

from course.core import outbox, queue, sql
from course.grading import notebooks, run_check
from course.programs import tiffin

from .wrong_answers import failed, fails_exactly

# -- 05.cancel_order -------------------------------------------------------------------------------

CANCELLED = "lab05_orders.cancelled"
CANCEL = "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id"


def read_then_write(conn, order_id):
    """Lab 03's race: the status read, then the order changed by id alone, with what was read."""
    with conn.transaction():
        row = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
        if row is None or row[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True


def lock_outside_the_transaction(conn, order_id):
    """FOR UPDATE in autocommit: the lock ends with that statement, before the change it was to guard."""
    row = conn.execute("SELECT status FROM orders WHERE id = %s FOR UPDATE", [order_id]).fetchone()
    if row is None or row[0] != "placed":
        return False
    with conn.transaction():
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True


def excludes_the_kitchens_statuses(conn, order_id):
    """Read first, then an UPDATE that keeps out the kitchen's statuses but not 'cancelled': a second click
    between the read and the write cancels the order again, and the kitchen hears it twice."""
    row = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
    if row is None or row[0] != "placed":
        return False
    with conn.transaction():
        done = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s "
                            "AND status NOT IN ('preparing', 'on_its_way', 'delivered') RETURNING id",
                            [order_id]).fetchone()
        if done:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return done is not None


def shares_the_order_lock(conn, order_id):
    """FOR SHARE: the kitchen waits for it, but two clicks both hold it, then each waits for the other to update."""
    with conn.transaction():
        row = conn.execute("SELECT status FROM orders WHERE id = %s FOR SHARE", [order_id]).fetchone()
        if row is None or row[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True


def passes_over_a_locked_order(conn, order_id):
    """SKIP LOCKED, a queue's habit: an order whose row the kitchen holds is called too late, even when the
    kitchen's change then rolls back and the order is still placed."""
    with conn.transaction():
        row = conn.execute("SELECT status FROM orders WHERE id = %s FOR UPDATE SKIP LOCKED", [order_id]).fetchone()
        if row is None or row[0] != "placed":
            return False
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True


def announces_what_it_read(conn, order_id):
    """The UPDATE checks the status again, but the outbox row follows the earlier read, not the UPDATE's answer."""
    with conn.transaction():
        row = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
        if row is None or row[0] != "placed":
            return False
        conn.execute(CANCEL, [order_id])
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True


def two_commits(conn, order_id):
    """The change, then its outbox row, each committing on its own: the dual write again."""
    cancelled = conn.execute(CANCEL, [order_id]).fetchone()
    if cancelled:
        conn.execute("INSERT INTO outbox (subject, payload) VALUES (%s, %s)",
                     [CANCELLED, Jsonb({"order_id": order_id})])
    return cancelled is not None


def the_row_first_in_two_commits(conn, order_id):
    """The outbox row first, on its own, then the change: a row for a change that may never happen."""
    status = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
    if status is None or status[0] != "placed":
        return False
    conn.execute("INSERT INTO outbox (subject, payload) VALUES (%s, %s)", [CANCELLED, Jsonb({"order_id": order_id})])
    return conn.execute(CANCEL, [order_id]).fetchone() is not None


def swallows_the_failure(conn, order_id):
    try:
        with conn.transaction():
            cancelled = conn.execute(CANCEL, [order_id]).fetchone()
            if cancelled:
                outbox.add(conn, CANCELLED, {"order_id": order_id})
        return cancelled is not None
    except psycopg.Error:
        return False


def no_status_condition(conn, order_id):
    """Cancels whatever the order's status: food already cooking, or delivered."""
    with conn.transaction():
        cancelled = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s RETURNING id",
                                 [order_id]).fetchone()
        if cancelled:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return cancelled is not None


def every_placed_order_of_the_customer(conn, order_id):
    """Cancels the customer's other placed orders too."""
    with conn.transaction():
        cancelled = conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE status = 'placed' AND customer_id = "
            "(SELECT customer_id FROM orders WHERE id = %s) RETURNING id", [order_id]).fetchall()
        if (order_id,) in cancelled:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return (order_id,) in cancelled


def stamps_the_order(conn, order_id):
    """Also moves the order's created_at to the moment of the cancellation."""
    with conn.transaction():
        cancelled = conn.execute("UPDATE orders SET status = 'cancelled', created_at = now() - interval '1 hour' "
                                 "WHERE id = %s AND status = 'placed' RETURNING id", [order_id]).fetchone()
        if cancelled:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return cancelled is not None


def the_order_placed_announcement_withdrawn(conn, order_id):
    """Deletes the order's unsent "placed" row, as if the kitchen need not hear of it: but that row is the
    relay's, and the kitchen then hears of a cancellation for an order it never saw."""
    with conn.transaction():
        cancelled = conn.execute(CANCEL, [order_id]).fetchone()
        if cancelled:
            conn.execute("DELETE FROM outbox WHERE sent_at IS NULL AND payload->>'order_id' = %s", [str(order_id)])
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return cancelled is not None


def cancels_until_it_is_on_its_way(conn, order_id):
    """Lets a customer cancel while the kitchen is cooking too."""
    with conn.transaction():
        cancelled = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s "
                                 "AND status IN ('placed', 'preparing') RETURNING id", [order_id]).fetchone()
        if cancelled:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return cancelled is not None


def announces_even_when_too_late(conn, order_id):
    with conn.transaction():
        cancelled = conn.execute(CANCEL, [order_id]).fetchone()
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return cancelled is not None


def data_in_the_payload(conn, order_id):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                           "RETURNING id, total_cents", [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id, "total_cents": row[1]})
    return row is not None


def a_job_instead_of_an_outbox_row(conn, order_id):
    """A job in our own queue for the kitchen: but the kitchen listens to the broker, not to our jobs table."""
    with conn.transaction():
        cancelled = conn.execute(CANCEL, [order_id]).fetchone()
        if cancelled:
            queue.enqueue(conn, "notify_kitchen", {"order_id": order_id})
    return cancelled is not None


def written_as_sent(conn, order_id):
    """The row written with sent_at set: the relay, which publishes unsent rows, never sends it."""
    with conn.transaction():
        cancelled = conn.execute(CANCEL, [order_id]).fetchone()
        if cancelled:
            conn.execute("INSERT INTO outbox (subject, payload, sent_at) VALUES (%s, %s, now())",
                         [CANCELLED, Jsonb({"order_id": order_id})])
    return cancelled is not None


def its_own_connection(conn, order_id):
    with psycopg.connect(conn.info.dsn, autocommit=True) as own, own.transaction():
        cancelled = own.execute(CANCEL, [order_id]).fetchone()
        if cancelled:
            outbox.add(own, CANCELLED, {"order_id": order_id})
    return cancelled is not None


def returns_the_row(conn, order_id):
    with conn.transaction():
        cancelled = conn.execute(CANCEL, [order_id]).fetchone()
        if cancelled:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return cancelled


def raises_when_too_late(conn, order_id):
    """Refuses with an error where the statement asks for False."""
    with conn.transaction():
        if conn.execute(CANCEL, [order_id]).fetchone() is None:
            raise ValueError(f"order {order_id} cannot be cancelled")
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    return True


# A blind red team's (round red5c), which passed before: safe only on a test's few orders, giving up on a
# locked order after a while, and a connection of its own wherever the caller has no transaction open.

def _the_hints_update(conn, order_id):
    with conn.transaction():
        cancelled = conn.execute(CANCEL, [order_id]).fetchone()
        if cancelled:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return cancelled is not None


def safe_only_on_the_demos_orders(conn, order_id):
    """The conditional UPDATE for order numbers like the demo's; a read, then a write by id, for the others."""
    if order_id < 9830:
        return _the_hints_update(conn, order_id)
    return read_then_write(conn, order_id)


def safe_only_on_a_small_table(conn, order_id):
    """The conditional UPDATE while there are few orders (a test's); a read, then a write by id, at dinner."""
    if conn.execute("SELECT count(*) FROM orders").fetchone()[0] <= 5:
        return _the_hints_update(conn, order_id)
    return read_then_write(conn, order_id)


def safe_only_on_a_dozen_orders(conn, order_id):
    """Lead's list, round f2: the conditional UPDATE while the table holds a dozen orders or fewer, the demo's
    read-then-write beyond. It passed: the race's scenario had 6 to 12 orders."""
    if conn.execute("SELECT count(*) FROM orders").fetchone()[0] <= 12:
        return _the_hints_update(conn, order_id)
    return read_then_write(conn, order_id)


def gives_up_on_a_locked_order(conn, order_id):
    """Waits 50 ms at most for the order's row, then answers False: the kitchen's rolled-back start leaves the
    order placed, and the customer was told it could not be cancelled."""
    try:
        with conn.transaction():
            conn.execute("SET LOCAL lock_timeout = '50ms'")
            return _the_hints_update(conn, order_id)
    except psycopg.errors.LockNotAvailable:
        return False


def its_own_connection_unless_the_caller_has_a_transaction(conn, order_id):
    """The given connection only inside a caller's transaction; a connection of its own everywhere else."""
    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        return _the_hints_update(conn, order_id)
    path = conn.execute("SHOW search_path").fetchone()[0]
    with psycopg.connect(conn.info.dsn, autocommit=True) as own:
        own.execute(f"SET search_path TO {path}")
        return _the_hints_update(own, order_id)


def commits_the_callers_transaction(conn, order_id):
    """BEGIN and COMMIT as statements: inside a caller's transaction, its COMMIT ends the caller's."""
    conn.execute("BEGIN")
    cancelled = conn.execute(CANCEL, [order_id]).fetchone()
    if cancelled:
        outbox.add(conn, CANCELLED, {"order_id": order_id})
    conn.execute("COMMIT")
    return cancelled is not None


def empties_the_items(conn, order_id):
    """Red team f2c: a cancelled order "holds nothing", so its items are emptied beside the status. It passed: every
    order the check stored had no items, and '[]' over '[]' changes nothing."""
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled', items = '[]' WHERE id = %s AND status = 'placed' "
                           "RETURNING id", [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None



def gives_up_after_five_seconds(conn, order_id):
    """Red team f4r05: lock_timeout 5 s, then False. It passed while the kitchen's crashed screen held the row
    for 2 s and rolled back: 5 s was patient enough there, and the customer at dinner is still told "too late"
    for an order nobody started."""
    try:
        with conn.transaction():
            conn.execute("SET LOCAL lock_timeout = '5s'")
            return _the_hints_update(conn, order_id)
    except psycopg.errors.LockNotAvailable:
        return False

def _f5_cancel(conn, order_id, *, where="", also=None):
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed'" + where +
                           " RETURNING customer_id", [order_id]).fetchone()
        if row:
            if also:
                conn.execute(also, [order_id if "jobs" in also else row[0]])
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None


def only_recent_orders(conn, order_id):
    """Red team f5 (cancel_w17): only orders placed in the last 30 minutes. It passed: every order was 10 minutes old."""
    return _f5_cancel(conn, order_id, where=" AND created_at > now() - interval '30 minutes'")


def ids_cast_to_int4(conn, order_id):
    """Red team f5 (cancel_w09): id = %s::int. It passed: no order id the check drew was past 2^31 - 1."""
    with conn.transaction():
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s::int AND status = 'placed' "
                           "RETURNING id", [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return row is not None


def deletes_the_receipt_job(conn, order_id):
    """Red team f5 (cancel_w20): also deletes the order's queued send_receipt job. It passed: no job was queued."""
    return _f5_cancel(conn, order_id, also="DELETE FROM jobs WHERE type = 'send_receipt' AND (payload->>'order_id')::bigint = %s")


def touches_the_customer(conn, order_id):
    """Red team f5 (cancel_w26): stamps the customer's updated_at. It passed: customers were not compared."""
    return _f5_cancel(conn, order_id, also="UPDATE customers SET updated_at = now() + interval '1 hour' WHERE id = %s")


def rolls_back_on_error(conn, order_id):
    """Red team f5 (cancel_w23): ROLLBACK of its own on a failure: inside the caller's transaction it ends it, the
    caller's earlier writes with it. It passed: no caller wrote before calling and caught the failure."""
    try:
        return _f5_cancel(conn, order_id)
    except Exception:
        conn.execute("ROLLBACK")
        raise


def toggles_autocommit(conn, order_id):
    """Red team f5 (cancel_w25): autocommit off, commit, on again: inside the caller's transaction psycopg refuses
    the switch, every time. It passed: a raise inside the caller's transaction was excused."""
    conn.autocommit = False
    try:
        row = conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' RETURNING id",
                           [order_id]).fetchone()
        if row:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    finally:
        conn.autocommit = True
    return row is not None


def commits_by_habit(conn, order_id):
    """Red team f5 (cancel_w27): hint 3's answer and conn.commit() after it: refused inside the caller's
    conn.transaction(), the caller's work committed inside a BEGIN of the caller's."""
    done = _f5_cancel(conn, order_id)
    conn.commit()
    return done


def repeatable_read_retried(conn, order_id):
    """Was a correct answer (test_correct_lab05) until the statement said the connection may be inside the
    caller's transaction: SET TRANSACTION ISOLATION LEVEL is refused in the savepoint conn.transaction() opens
    there, so the cancel raises every time a caller wraps it."""
    while True:
        try:
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                row = conn.execute("SELECT status FROM orders WHERE id = %s", [order_id]).fetchone()
                if row is None or row[0] != "placed":
                    return False
                conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = %s", [order_id])
                outbox.add(conn, CANCELLED, {"order_id": order_id})
                return True
        except psycopg.errors.SerializationFailure:
            continue


ALREADY = "the kitchen starting the order while yours runs"
TWICE = "two cancels of the same order at once"
KILLED = "a process killed between any two of its statements"

WRONG_CANCELS = {  # the answer, the checks it must fail, the checks it may also fail
    "read_then_write": (read_then_write, [ALREADY], []),
    "lock_outside_the_transaction": (lock_outside_the_transaction, [ALREADY], []),
    "excludes_the_kitchens_statuses": (excludes_the_kitchens_statuses, [TWICE], []),
    "shares_the_order_lock": (shares_the_order_lock, [TWICE], []),
    "passes_over_a_locked_order": (passes_over_a_locked_order, [ALREADY], []),
    "announces_what_it_read": (announces_what_it_read, [ALREADY], []),
    "two_commits": (two_commits, ["when the outbox row cannot be stored, the order stays placed", KILLED],
                    ["if the transaction does not commit"]),
    "the_row_first_in_two_commits": (the_row_first_in_two_commits, ["when the order cannot be changed, no outbox row",
                                                                   KILLED], ["if the transaction does not commit", ALREADY]),
    "swallows_the_failure": (swallows_the_failure, ["and the failure reaches the caller"], []),
    "no_status_condition": (no_status_condition, ["leaves an order that is not placed"], [
        "adds one outbox row when it cancels", "adds no outbox row when it does not cancel", "returns True", ALREADY]),
    "every_placed_order_of_the_customer": (every_placed_order_of_the_customer, ["changes nothing else"], []),
    "stamps_the_order": (stamps_the_order, ["changes nothing else"], []),
    "the_order_placed_announcement_withdrawn": (the_order_placed_announcement_withdrawn, ["changes nothing else"], []),
    "cancels_until_it_is_on_its_way": (cancels_until_it_is_on_its_way, ["leaves an order that is not placed"], [ALREADY]),
    "announces_even_when_too_late": (announces_even_when_too_late, ["adds no outbox row when it does not cancel"],
                                     ["adds one outbox row when it cancels", ALREADY]),  # a second click's row too
    "data_in_the_payload": (data_in_the_payload, ["the row's payload is"], []),
    "a_job_instead_of_an_outbox_row": (a_job_instead_of_an_outbox_row, ["adds one outbox row when it cancels"], [
        "when the outbox row cannot be stored", "if the transaction does not commit"]),  # it never writes one
    "written_as_sent": (written_as_sent, ["adds one outbox row when it cancels"], []),
    "its_own_connection": (its_own_connection, ["uses the connection it is given"], []),
    "returns_the_row": (returns_the_row, ["returns True when it cancelled the order"], []),
    "raises_when_too_late": (raises_when_too_late, ["returns True when it cancelled the order"],
                             [ALREADY, "uses the connection it is given"]),  # it raises inside the caller's, too
    "safe_only_on_the_demos_orders": (safe_only_on_the_demos_orders, [ALREADY], []),
    "safe_only_on_a_small_table": (safe_only_on_a_small_table, [ALREADY], []),
    "safe_only_on_a_dozen_orders": (safe_only_on_a_dozen_orders, [ALREADY], []),
    "gives_up_on_a_locked_order": (gives_up_on_a_locked_order, [ALREADY], []),
    "gives_up_after_five_seconds": (gives_up_after_five_seconds, [ALREADY], []),
    "its_own_connection_unless_the_caller_has_a_transaction": (
        its_own_connection_unless_the_caller_has_a_transaction, ["uses the connection it is given"], []),
    "commits_the_callers_transaction": (commits_the_callers_transaction, ["uses the connection it is given"], []),
    "empties_the_items": (empties_the_items, ["changes nothing else"], []),
    "only_recent_orders": (only_recent_orders, ["cancels an order still placed"], ["and the failure reaches the caller"]),
    "ids_cast_to_int4": (ids_cast_to_int4, ["returns True when it cancelled the order"], ["cancels an order still placed",
                                                                                          "uses the connection it is given"]),
    "deletes_the_receipt_job": (deletes_the_receipt_job, ["changes nothing else"], []),
    "touches_the_customer": (touches_the_customer, ["changes nothing else"], []),
    "rolls_back_on_error": (rolls_back_on_error, ["uses the connection it is given"], []),
    "toggles_autocommit": (toggles_autocommit, ["uses the connection it is given"], []),
    "commits_by_habit": (commits_by_habit, ["uses the connection it is given"], []),
    "repeatable_read_retried": (repeatable_read_retried, ["uses the connection it is given"], []),
}


@pytest.mark.parametrize("case", WRONG_CANCELS)
@pytest.mark.slow
def test_wrong_cancels_fail(case):
    answer, reasons, may = WRONG_CANCELS[case]
    report = run_check("05.cancel_order", cancel_order=answer)
    assert fails_exactly(report, reasons, may), report.render()


@pytest.mark.slow
def test_a_read_then_write_is_told_what_the_kitchen_did_between():
    text = run_check("05.cancel_order", cancel_order=read_then_write).render()
    assert "the kitchen started order" in text and "AND status = 'placed'" in text, text
    deadlock = run_check("05.cancel_order", cancel_order=shares_the_order_lock).render()
    assert "DeadlockDetected" in deadlock and "FOR SHARE" in deadlock, deadlock
    skipped = run_check("05.cancel_order", cancel_order=passes_over_a_locked_order).render()
    assert "rolled back" in skipped and "SKIP LOCKED" in skipped, skipped
    timed_out = run_check("05.cancel_order", cancel_order=gives_up_on_a_locked_order).render()
    assert "rolled back" in timed_out and "lock_timeout" in timed_out, timed_out


@pytest.mark.slow
def test_a_connection_of_its_own_and_a_commit_of_the_callers_are_told_apart():
    own = run_check("05.cancel_order", cancel_order=its_own_connection_unless_the_caller_has_a_transaction).render()
    assert "written from another session" in own, own
    commits = run_check("05.cancel_order", cancel_order=commits_the_callers_transaction).render()
    assert "ended the caller's transaction" in commits and "another session" not in commits, commits


def test_the_kitchen_starts_only_a_placed_order():
    from course.infra import db

    schema = "test_lab05_kitchen"
    db.reset_schema(schema)
    with db.connect(schema) as conn:
        tiffin.install(conn)
        order_id = tiffin.place_order(conn, 1, total_cents=2350)["id"]
        assert tiffin.start_preparing(conn, order_id) is True
        assert tiffin.start_preparing(conn, order_id) is False  # started already
        assert tiffin.start_preparing(conn, order_id + 1) is False  # no such order
        assert tiffin.order(conn, order_id)["status"] == "preparing"
    db.drop_schema(schema)



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


def caps_the_limit_at_twenty(conn, publish, limit=10):
    """Red team f2c: honours `limit` up to 20, the most it "should ever need". It passed: no outbox the check drew
    had more than 20 rows waiting with a limit above 20."""
    with conn.transaction():
        rows = claim(conn, min(limit, 20))
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        mark_sent(conn, [row[0] for row in rows])
    return len(rows)


resends_rows_sent_long_ago = _relay_with("resends_rows_sent_long_ago", CLAIM.replace(
    "WHERE sent_at IS NULL", "WHERE (sent_at IS NULL OR sent_at < now() - interval '10 minutes')"))
resends_rows_sent_long_ago.__doc__ = """Red team f5 (relay_w08): rows sent over 10 minutes ago go out again. It passed:
every sent row the check drew was sent seconds ago."""
ignores_rows_older_than_a_day = _relay_with("ignores_rows_older_than_a_day", CLAIM.replace(
    "WHERE sent_at IS NULL", "WHERE sent_at IS NULL AND created_at > now() - interval '1 day'"))
ignores_rows_older_than_a_day.__doc__ = """Red team f5 (relay_w22): an unsent row older than a day is never sent. It
passed: every row the check drew was written within the hour."""


def deletes_rows_sent_a_day_ago(conn, publish, limit=10):
    """Red team f5 (relay_w09): "housekeeping" after each batch. It passed: no row the check drew was sent a day ago."""
    with conn.transaction():
        rows = claim(conn, limit)
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        mark_sent(conn, [row[0] for row in rows])
        conn.execute("DELETE FROM outbox WHERE sent_at < now() - interval '1 day'")
    return len(rows)


def marks_with_int4_ids(conn, publish, limit=10):
    """Red team f5 (relay_w30): marks with id = ANY(%s::int[]). It passed: every id the check drew was small."""
    with conn.transaction():
        rows = claim(conn, limit)
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute("UPDATE outbox SET sent_at = now() WHERE id = ANY(%s::int[])", [[r[0] for r in rows]])
    return len(rows)


def one_relay_at_a_time(conn, publish, limit=10):
    """Red team f5 (relay_w29): a blocking pg_advisory_xact_lock first: a second relay running this code waits for
    the first's whole batch. It passed: the relay beside it was always the reference, which takes no such lock."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('outbox relay'))")
        rows = claim(conn, limit)
        for _, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        mark_sent(conn, [row[0] for row in rows])
    return len(rows)


WRONG_RELAYS = {  # the answer, the checks it must fail, the checks it may also fail
    "one_relay_at_a_time": (one_relay_at_a_time, ["a second relay does not wait for rows"], []),
    "resends_rows_sent_long_ago": (resends_rows_sent_long_ago, ["publishes only unsent rows"], ["an empty outbox"]),
    "ignores_rows_older_than_a_day": (ignores_rows_older_than_a_day, ["publishes every row once, oldest first"],
                                      ["takes up to `limit` rows per call"]),
    "deletes_rows_sent_a_day_ago": (deletes_rows_sent_a_day_ago, ["marks sent the rows it published, and only those"],
                                    []),
    "marks_with_int4_ids": (marks_with_int4_ids, ["marks sent the rows it published, and only those"], []),
    "tries_a_row_three_times_then_goes_on": (tries_a_row_three_times_then_goes_on,
                                             ["when a publish fails, rows it did not publish stay unsent"], []),
    "newest_first": (newest_first, ["publishes every row once, oldest first"], []),
    "oldest_by_created_at": (oldest_by_created_at, ["publishes every row once, oldest first"], []),
    "ignores_the_limit": (ignores_the_limit, ["takes up to `limit` rows per call"], []),
    "ten_whatever_the_limit": (ten_whatever_the_limit, ["takes up to `limit` rows per call"], []),
    "caps_the_limit_at_twenty": (caps_the_limit_at_twenty, ["takes up to `limit` rows per call"], []),
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
        # a cap anywhere below the statement's largest limit (100) is seen too: more than 100 rows wait, limit 100
        assert any(o.limit >= 100 and len(o.unsent) > 100 for o in drawn)
    finally:
        t.close()


@pytest.mark.slow
def test_a_transaction_that_ended_before_the_mark_is_told_from_the_server():
    text = run_check("05.relay", relay_batch=marked_after_the_commit).render()
    assert "your session had no transaction open" in text or "the transaction that claimed them had ended" in text, text
    weak = run_check("05.relay", relay_batch=a_shared_lock).render()
    assert "a lock two relays can hold at once" in weak, weak


@pytest.mark.slow
@pytest.mark.parametrize("exercise, answer", [("05.relay", newest_first), ("05.cancel_order", data_in_the_payload)])
def test_a_seed_replays_the_same_failure_every_time(exercise, answer):
    name = "relay_batch" if exercise == "05.relay" else "cancel_order"
    runs = {run_check(exercise, seed=11, **{name: answer}).render() for _ in range(3)}
    assert len(runs) == 1 and "seed=11" in runs.pop()


# -- what the scenarios are made of ---------------------------------------------------------------------


@pytest.mark.parametrize("module", ["outbox", "cancel_order"])
def test_every_shrink_is_a_different_scenario_so_shrinking_ends(module):
    from course.grading.checks.lab05 import cancel_order, outbox

    families = outbox.families() if module == "outbox" else cancel_order.families()
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
    for clause in ("with conn.transaction():", "UPDATE orders SET status = 'cancelled' WHERE id = %s AND status = 'placed' "
                   "RETURNING id", 'outbox.add(conn, CANCELLED, {"order_id": order_id})', "return cancelled is not None"):
        assert clause in " ".join(cells["05.cancel_order"].split()).replace('" "', ""), clause


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


@pytest.mark.parametrize("exercise, argument", [("05.relay", "relay_batch"), ("05.cancel_order", "cancel_order")])
@pytest.mark.slow
def test_an_answer_that_does_nothing_passes_no_check(exercise, argument):
    """A stub that returns None shows no effect, so no row of the report may pass it (in class grading a vacuous
    pass is a mark earned by nothing)."""
    report = run_check(exercise, seed=1, **{argument: lambda *args, **kwargs: None})
    assert report.results and not any(result.passed for result in report.results), report.render()
