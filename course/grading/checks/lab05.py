"""Lab 05: the dual write and the outbox — place_order in one transaction, the relay's core step, the quiz.

Both code checks break things on purpose. `05.place_order` makes the second of the two writes fail, and
SIGKILLs a real process while that write waits; `05.relay` SIGKILLs a real process after it published
and before it could mark the rows sent, recreates the outbox so ids start again at 1, and runs two
relays at once: once with the first held mid-publish, once with it held just before its mark.
Everything goes to the real PostgreSQL and to the course's real NATS JetStream server, in a stream of
the check's own that is deleted afterwards.

Learner code that must crash runs in a child process: `python -m course.grading.checks.lab05 SPEC`
runs the (cloudpickled) function and arguments in SPEC, so the SIGKILL is a real one.
"""

from __future__ import annotations

import secrets
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import psycopg

from course.infra import broker, processes
from course.core import outbox
from course.programs import tiffin

from course.grading.trial import Trial, describe
from course.grading.faults import killpoint
from course.grading.checks import exercise_check, shared
from course.grading.checks.quiz import ask

CHILD_TIMEOUT_S = 60.0  # a loaded 2-core machine may take a while to start a Python process


# -- a function in a child process, to be SIGKILLed for real ---------------------------------------


def start_in_child(name: str, fn, *args) -> processes.Child:
    """Run fn(*args) in a new Python process (the function travels by cloudpickle)."""
    return processes.python_with(name, "course.grading.checks.lab05", (fn, args))


def _child_main(spec_path: str) -> int:
    fn, args = processes.unpickle(spec_path)
    Path(spec_path).unlink(missing_ok=True)
    fn(*args)
    return 0


def _backend_gone(conn: psycopg.Connection, application_name: str) -> bool:
    return conn.execute("SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = %s",
                        [application_name]).fetchone()[0]


# -- 05.place_order --------------------------------------------------------------------------------

# The second of the two writes (whichever it is) waits on an advisory lock the check holds, so the
# check can SIGKILL the process at exactly that moment.
HOLD_SECOND_WRITE = """
CREATE OR REPLACE FUNCTION hold_second_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (TG_TABLE_NAME = 'jobs' AND EXISTS (SELECT 1 FROM orders))
       OR (TG_TABLE_NAME = 'orders' AND EXISTS (SELECT 1 FROM jobs)) THEN
        PERFORM pg_advisory_xact_lock({key});
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER hold_second_write BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION hold_second_write();
CREATE TRIGGER hold_second_write BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION hold_second_write();
"""


def _counts(conn: psycopg.Connection) -> tuple[int, int]:
    return conn.execute("SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM jobs)").fetchone()


def _in_words(counts: tuple[int, int]) -> str:
    orders, jobs = counts
    return f"{orders} order(s), {jobs} job(s)"


def _start_over(conn: psycopg.Connection) -> None:
    conn.execute("DROP TRIGGER IF EXISTS hold_second_write ON orders; DROP TRIGGER IF EXISTS hold_second_write ON jobs;"
                 "TRUNCATE jobs, orders")


def _what_was_left(counts: tuple[int, int]) -> str | None:
    orders, jobs = counts
    if orders and not jobs:
        return "a paid order with no receipt job: the customer is told 'order placed' and never gets a receipt"
    if jobs and not orders:
        return "a receipt job for an order that does not exist"
    return None


def _place_order_in_child(place_order, conninfo: str, application_name: str) -> None:
    with psycopg.connect(conninfo, autocommit=True, application_name=application_name) as conn:
        place_order(conn, 2, 1890)


@exercise_check("05.place_order")
def place_order_check(t: Trial, place_order):
    box = t.scratch()
    tiffin.install(box.conn)
    example = "place_order(conn, 1, 2350) on an empty schema"
    order_id = t.call(place_order, box.conn, 1, 2350, during="place_order(conn, 1, 2350)")
    t.require("returns the new order's id (an int)", ok=isinstance(order_id, int) and not isinstance(order_id, bool),
              got=order_id, example=example)
    orders = box.conn.execute("SELECT id, customer_id, total_cents FROM orders").fetchall()
    t.require("stores exactly one order", got=len(orders), expected=1, example=example)
    t.expect("the returned id is the stored order's id", got=order_id, expected=orders[0][0], example=example)
    t.expect("the order is customer 1's, for 2350 cents", got=orders[0][1:], expected=(1, 2350), example=example)
    jobs = box.conn.execute("SELECT type, payload FROM jobs").fetchall()
    t.require("stores exactly one job", got=len(jobs), expected=1, example=example)
    t.expect("the job's type is 'send_receipt'", got=jobs[0][0], expected="send_receipt", example=example)
    t.expect("its payload is the order's id and nothing else", got=jobs[0][1], expected={"order_id": order_id},
             example=example, note="ids, not data: the worker reads the order fresh")

    _start_over(box.conn)
    shared.expect_jobs_in_the_business_transaction(
        t, lambda c: place_order(c, 1, 2350), box.conn, table="orders", thing="order",
        told="the customer is not told 'order placed'", gets="a receipt",
        call="place_order(conn, 1, 2350)")

    _start_over(box.conn)
    _crash_between_the_writes(t, box, place_order)


def _crash_between_the_writes(t: Trial, box, place_order) -> None:
    key = secrets.randbelow(2**31 - 1) + 1
    box.conn.execute(HOLD_SECOND_WRITE.format(key=key))
    holder = box.connect()
    holder.execute("SELECT pg_advisory_lock(%s)", [key])
    application_name = f"lab05-checkout-{secrets.token_hex(3)}"
    child = start_in_child("lab05-checkout", _place_order_in_child, place_order, box.conninfo, application_name)
    waited = "it never reached its second write"
    try:
        deadline = time.monotonic() + CHILD_TIMEOUT_S
        while child.alive() and time.monotonic() < deadline:
            blocked = holder.execute(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = %s "
                "AND objsubid = 1 AND NOT granted", [key]).fetchone()
            if blocked:
                child.kill()  # SIGKILL, between the first write and the second
                # The process is gone, and its connection with it: end the session the server still holds.
                holder.execute("SELECT pg_terminate_backend(%s)", [blocked[0]])
                processes.wait_until(lambda: _backend_gone(holder, application_name), 30,
                                     what="the killed process's session to end")
                waited = "SIGKILLed while its second write was on its way"
                break
            time.sleep(0.05)
    finally:
        if child.alive():
            child.kill()
        holder.execute("SELECT pg_advisory_unlock(%s)", [key])
        holder.close()
    counts = _counts(box.conn)
    t.expect("a process SIGKILLed between the two writes leaves neither the order nor the job",
             got=_in_words(counts), expected=_in_words((0, 0)),
             example=f"place_order(conn, 2, 1890) in a child process, {waited}",
             note=_what_was_left(counts) or ("the process finished or failed on its own before the kill:\n"
                                             + child.log_tail(8) if waited.startswith("it never") else None))
    box.conn.execute("DROP TRIGGER hold_second_write ON orders; DROP TRIGGER hold_second_write ON jobs")


# -- 05.relay --------------------------------------------------------------------------------------


class Publisher:
    """The `publish` the check hands to relay_batch: the real broker, with every call written down."""

    def __init__(self, stream: str, *, fail_at: int | None = None, hold_first: threading.Event | None = None):
        self.stream = stream
        self.calls: list[dict] = []  # subject, payload, msg_id, duplicate
        self.fail_at = fail_at  # raise TimeoutError on this call (1 = the first), as a broker that is away
        self.hold_first = hold_first  # wait for this before the first publish (a relay caught mid-batch)
        self.entered = threading.Event()

    def __call__(self, subject, payload, msg_id=None):
        self.entered.set()
        if self.hold_first is not None and not self.calls:
            self.hold_first.wait(CHILD_TIMEOUT_S)
        if self.fail_at is not None and len(self.calls) + 1 == self.fail_at:
            self.fail_at = None
            raise TimeoutError("nats: timeout (injected: the broker did not answer this publish)")
        ack = broker.publish(subject, payload, msg_id=msg_id, stream=self.stream)
        self.calls.append({"subject": subject, "payload": payload, "msg_id": msg_id,
                           "duplicate": bool(ack.duplicate)})
        return ack

    def orders(self) -> list[int]:
        return [call["payload"].get("order_id") if isinstance(call["payload"], dict) else None for call in self.calls]


def _publish_then_die(stream: str, after: int):
    """A publish for the child process: SIGKILL itself right after the `after`-th message was stored."""
    import os
    import signal

    published = []

    def publish(subject, payload, msg_id=None):
        ack = broker.publish(subject, payload, msg_id=msg_id, stream=stream)
        published.append(subject)
        if len(published) == after:
            os.kill(os.getpid(), signal.SIGKILL)
        return ack

    return publish


def _relay_in_child(relay_batch, conninfo: str, application_name: str, stream: str, crash_after: int) -> None:
    with psycopg.connect(conninfo, autocommit=True, application_name=application_name) as conn:
        relay_batch(conn, _publish_then_die(stream, crash_after), 10)


class _Orders:
    """Outbox rows announcing orders 9812, 9813, ... (each payload names a different order)."""

    def __init__(self, subject: str):
        self.subject = subject
        self.next_order = 9812

    def add(self, conn: psycopg.Connection, count: int) -> list[int]:
        with conn.transaction():
            ids = [outbox.add(conn, self.subject, {"order_id": self.next_order + n}) for n in range(count)]
        self.next_order += count
        return ids


def _stored_orders(stream: str) -> list[int]:
    return [m.data.get("order_id") if isinstance(m.data, dict) else None
            for m in broker.messages(stream, limit=10_000)]


def _unsent(conn: psycopg.Connection) -> list[int]:
    return [row[0] for row in conn.execute("SELECT id FROM outbox WHERE sent_at IS NULL ORDER BY id")]


def _row_orders(conn: psycopg.Connection) -> dict[int, int]:
    """outbox row id -> the order it announces"""
    return dict(conn.execute("SELECT id, (payload->>'order_id')::int FROM outbox ORDER BY id").fetchall())


def _drain(t: Trial, relay_batch, conn, publish, during: str, rounds: int = 6) -> None:
    for _ in range(rounds):
        if not t.call(relay_batch, conn, publish, 10, during=during):
            return


@exercise_check("05.relay")
def relay_check(t: Trial, relay_batch):
    box = t.scratch(queue_tables=False)
    outbox.install(box.conn)
    stream = f"CHECK05_{secrets.token_hex(4).upper()}"
    broker.ensure_stream(stream, [f"{stream.lower()}.>"])  # the default duplicate window: two minutes
    try:
        _relay_checks(t, relay_batch, box, stream)
    finally:
        broker.delete_stream(stream)


def _relay_checks(t: Trial, relay_batch, box, stream: str) -> None:
    orders = _Orders(f"{stream.lower()}.placed")
    publish = Publisher(stream)

    got = t.call(relay_batch, box.conn, publish, 10, during="relay_batch(conn, publish, 10) on an empty outbox")
    t.expect("an empty outbox: returns 0 and publishes nothing", got=(got, len(publish.calls)), expected=(0, 0),
             example="relay_batch(conn, publish, 10) with no rows")

    example = "5 unsent rows, then relay_batch(conn, publish, 10)"
    ids = orders.add(box.conn, 5)
    got = t.call(relay_batch, box.conn, publish, 10, during="relay_batch(conn, publish, 10) with 5 unsent rows")
    t.require("returns how many rows it published", got=got, expected=5, example=example)
    by_row = _row_orders(box.conn)
    t.expect("publishes every row once, oldest first", got=_stored_orders(stream),
             expected=[by_row[i] for i in ids], example=example)
    t.expect("marks the published rows sent", got=_unsent(box.conn), expected=[], example=example,
             note="unsent rows left (their ids) are published again by the next batch")
    events = dict(box.conn.execute("SELECT id, event_id::text FROM outbox").fetchall())
    msg_ids = [m.headers.get(broker.MSG_ID) for m in broker.messages(stream)]
    wanted = [events[i] for i in ids]
    first = next((n for n, (got_id, want) in enumerate(zip(msg_ids, wanted)) if got_id != want), 0)
    t.expect("sets Nats-Msg-Id to each row's event_id", ok=msg_ids == wanted,
             got=f"row {ids[first]}: Nats-Msg-Id {msg_ids[first] if first < len(msg_ids) else None!r}",
             expected=f"row {ids[first]}: Nats-Msg-Id {wanted[first]!r} (its event_id)",
             example=example, note="publish(subject, payload, msg_id=str(event_id))")
    again = t.call(relay_batch, box.conn, publish, 10, during="relay_batch(conn, publish, 10) a second time")
    t.expect("a second call finds nothing left to send", got=again, expected=0, example=example + ", twice")

    before = len(publish.calls)
    orders.add(box.conn, 12)
    first = t.call(relay_batch, box.conn, publish, 10, during="relay_batch(conn, publish, 10) with 12 unsent rows")
    second = t.call(relay_batch, box.conn, publish, 10, during="relay_batch(conn, publish, 10) again")
    t.expect("takes at most `limit` rows per call", got=(first, second, len(publish.calls) - before),
             expected=(10, 2, 12), example="12 unsent rows, then relay_batch(conn, publish, 10) twice")

    if not all(result.passed for result in t.results if "Nats-Msg-Id" not in result.name):
        return  # these come first; the crash and the concurrency below build on them
    _a_publish_that_fails(t, relay_batch, box, orders, stream)
    _a_crash_after_publishing(t, relay_batch, box, orders, stream)
    _ids_that_start_again(t, relay_batch, box, orders, stream)
    _two_relays_at_once(t, relay_batch, box, orders, stream)
    _a_relay_between_its_publishes_and_its_mark(t, relay_batch, box, orders, stream)


def _a_publish_that_fails(t: Trial, relay_batch, box, orders: _Orders, stream: str) -> None:
    ids = orders.add(box.conn, 3)
    failing = Publisher(stream, fail_at=2)
    try:
        relay_batch(box.conn, failing, 10)
    except NotImplementedError:
        raise
    except Exception:
        pass  # raising is a fine answer to a broker that does not answer
    published = set(failing.orders())
    wrongly_marked = [i for i, order in _row_orders(box.conn).items()
                      if i in ids and i not in _unsent(box.conn) and order not in published]
    t.expect("when a publish fails, rows it did not publish stay unsent", got=wrongly_marked, expected=[],
             example="3 unsent rows; the broker times out on the 2nd publish",
             note="these rows are marked sent but never reached the broker: lost" if wrongly_marked else None)
    _drain(t, relay_batch, box.conn, Publisher(stream), "relay_batch(conn, publish, 10) after a failed publish")


def _a_crash_after_publishing(t: Trial, relay_batch, box, orders: _Orders, stream: str) -> None:
    ids = orders.add(box.conn, 5)
    application_name = f"lab05-relay-{secrets.token_hex(3)}"
    child = start_in_child("lab05-relay", _relay_in_child, relay_batch, box.conninfo, application_name, stream, 3)
    try:
        code = child.wait(CHILD_TIMEOUT_S)
    except Exception:
        child.kill()
        code = None
    processes.wait_until(lambda: _backend_gone(box.conn, application_name), 30,
                         what="the killed relay's session to end")
    t.expect("(set-up) the relay process was SIGKILLed after its 3rd publish", got=code, expected=-9,
             example="relay_batch(conn, publish, 10) in a child process, 5 unsent rows",
             note=None if code == -9 else "it ended on its own:\n" + child.log_tail(8))
    _drain(t, relay_batch, box.conn, Publisher(stream), "relay_batch(conn, publish, 10) after the crash")
    stored = Counter(_stored_orders(stream))
    by_row = _row_orders(box.conn)
    copies = {i: stored[by_row[i]] for i in ids}
    wrong = [i for i, n in copies.items() if n != 1]
    note = None
    if wrong:
        first = wrong[0]
        note = (f"outbox row {first} (order {by_row[first]}) is in the stream {copies[first]} time(s). "
                + ("Lost: it was marked sent before it was published, and the crash came in between."
                   if copies[first] == 0 else
                   "The crash came after publishing and before the row was marked sent, so it went out again: "
                   "JetStream drops the copy only when it carries the same Nats-Msg-Id."))
    t.expect("killed after publishing and before marking sent: after a restart each row is in the stream once",
             got={i: copies[i] for i in ids}, expected={i: 1 for i in ids},
             example="5 rows; SIGKILL right after the 3rd publish; then relay_batch until nothing is left",
             note=note)


def _ids_that_start_again(t: Trial, relay_batch, box, orders: _Orders, stream: str) -> None:
    box.conn.execute("DROP TABLE outbox")
    outbox.install(box.conn)  # a new table: ids start again at 1, event_ids are new uuids
    before = broker.count_messages(stream)
    ids = orders.add(box.conn, 3)
    publish = Publisher(stream)
    _drain(t, relay_batch, box.conn, publish, "relay_batch(conn, publish, 10) on a new outbox table")
    dropped = sum(call["duplicate"] for call in publish.calls)
    t.expect("a new outbox table whose ids start again at 1: its rows are not mistaken for old ones",
             got=broker.count_messages(stream) - before, expected=len(ids),
             example=f"outbox dropped and created again; rows {ids} published within the duplicate window",
             note=f"JetStream dropped {dropped} of them as copies of earlier messages with the same Nats-Msg-Id: "
                  "the row id is not unique for long enough; the row's event_id (a uuid) is" if dropped else None)


def _two_relays_at_once(t: Trial, relay_batch, box, orders: _Orders, stream: str) -> None:
    orders.add(box.conn, 10)
    release = threading.Event()
    first = Publisher(stream, hold_first=release)
    second = Publisher(stream)
    outcome: dict[str, object] = {}

    def run_first() -> None:
        with box.connect() as conn:
            try:
                outcome["first"] = relay_batch(conn, first, 5)
            except Exception as error:  # reported below
                outcome["first"] = error

    thread = threading.Thread(target=run_first, name="relay-A", daemon=True)
    thread.start()
    example = "10 unsent rows; relay A holds its batch of 5 mid-publish while relay B runs relay_batch(conn, publish, 5)"
    try:
        deadline = time.monotonic() + CHILD_TIMEOUT_S
        while not first.entered.wait(0.05) and thread.is_alive() and time.monotonic() < deadline:
            pass
        if not first.entered.is_set():
            t.expect("(set-up) relay A started publishing", ok=False, got=outcome.get("first"), example=example)
            return
        with box.connect() as conn:
            conn.execute("SET lock_timeout = '2s'")
            try:
                outcome["second"] = relay_batch(conn, second, 5)
            except psycopg.errors.LockNotAvailable:
                outcome["second"] = "waited"
            except NotImplementedError:
                raise
            except Exception as error:
                outcome["second"] = error
    finally:
        release.set()
        thread.join(CHILD_TIMEOUT_S)
    t.expect("a second relay does not wait for rows the first one holds (SKIP LOCKED)",
             ok=outcome.get("second") != "waited", got="it waited for relay A's locks",
             example=example, note="FOR UPDATE SKIP LOCKED passes over rows another relay has locked")
    both = sorted(set(first.orders()) & set(second.orders()))
    t.expect("... and does not publish the rows the first one holds", got=both, expected=[], example=example,
             note=(f"orders {both} were published by both relays: claim with FOR UPDATE (SKIP LOCKED) inside the "
                   "transaction that later marks them sent") if both else None)


def _a_relay_between_its_publishes_and_its_mark(t: Trial, relay_batch, box, orders: _Orders, stream: str) -> None:
    """Relay A stopped on cue when it is about to mark its batch sent; relay B runs then. Inside A's
    transaction its rows are still locked, and B skips them. A mark moved after the commit leaves them
    unlocked and unsent at that moment: B claims them and publishes them a second time."""
    orders.add(box.conn, 8)
    key = secrets.randbelow(2**31 - 1) + 1
    name = f"lab05-relay-A-{secrets.token_hex(3)}"
    # A's UPDATEs of outbox wait, before they touch a row, on a lock the check holds: A is stopped on cue
    # after its last publish and before its mark, with whatever row locks it still has.
    killpoint.hold_statements(box.conn, "outbox", "UPDATE", key, sessions=name)
    first, second = Publisher(stream), Publisher(stream)
    outcome: dict[str, object] = {}

    def run_first() -> None:
        with psycopg.connect(box.conninfo, autocommit=True, application_name=name) as conn:
            try:
                outcome["first"] = relay_batch(conn, first, 5)
            except Exception as error:  # reported below
                outcome["first"] = error

    thread = threading.Thread(target=run_first, name="relay-A", daemon=True)
    example = ("8 unsent rows; relay A runs relay_batch(conn, publish, 5) and is stopped as it marks its rows sent; "
               "meanwhile relay B runs relay_batch(conn, publish, 5)")
    held = False
    try:
        thread.start()
        deadline, waiting = time.monotonic() + CHILD_TIMEOUT_S, killpoint.waiting_on_a_held_statement(box)
        while thread.is_alive() and time.monotonic() < deadline and not held:
            held = waiting(name)
            time.sleep(0 if held else 0.01)
        if held:
            outcome["second"] = _second_relay(relay_batch, box, second)
    finally:
        killpoint.release_statements(box.conn, "outbox", key)
        thread.join(CHILD_TIMEOUT_S)
    if not held:
        first_outcome = outcome.get("first")
        t.expect("(set-up) relay A reached the UPDATE that marks its rows sent", ok=False,
                 got=describe(first_outcome) if isinstance(first_outcome, Exception) else first_outcome,
                 example=example)
        return
    if outcome["second"] == "waited":
        return  # a relay that waits for another's locks is told so above, by the SKIP LOCKED check
    both = sorted(set(first.orders()) & set(second.orders()))
    t.expect("relay A held just before it marks its rows sent: a second relay publishes none of them",
             ok=not both and not isinstance(outcome["second"], Exception),
             got=(f"relay B raised {describe(outcome['second'])}" if isinstance(outcome["second"], Exception)
                  else f"orders {both} published by both relays"),
             expected="relay B publishes only rows relay A did not claim", example=example,
             note=("all in one transaction: mark the rows sent inside the transaction that claimed them. Once it "
                   "commits, its rows are unlocked and still unsent, and the next relay claims and publishes "
                   "them again (JetStream drops such a copy only within its duplicate window)") if both else None)


def _second_relay(relay_batch, box, publish: Publisher):
    """Relay B's run while relay A is held: what it returned, "waited" if it waited for A's row locks."""
    with box.connect() as conn:
        conn.execute("SET lock_timeout = '2s'")
        try:
            return relay_batch(conn, publish, 5)
        except psycopg.errors.LockNotAvailable:
            return "waited"
        except NotImplementedError:
            raise
        except Exception as error:  # reported by the caller
            return error


@exercise_check("05.quiz")
def quiz(t: Trial, q1, q2, q3, q4):
    ask(t, "q1", q1, "b", "what a crash between the two writes leaves behind",
        "the first write had committed; what happened to the second?")
    ask(t, "q2", q2, "b", "why the relay publishes some rows twice", "what happens between publish and mark sent?")
    ask(t, "q3", q3, {"b", "c"}, "why consumers stay idempotent with Nats-Msg-Id",
        "how long does JetStream remember an id, and what does it de-duplicate: the way in or the way out?")
    ask(t, "q4", q4, "c", "why the event's uuid is the message id, not the row id",
        "what happens to the ids when the outbox table is created again?")


if __name__ == "__main__":
    raise SystemExit(_child_main(sys.argv[1]))
