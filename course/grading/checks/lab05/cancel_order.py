"""05.cancel_order: the learner's cancel_order and the reference run on the same Tiffin orders and outbox,
drawn from everything the statement allows (first an order of each status alone; then the order placed, or started by the kitchen, on its way,
delivered, cancelled already, or not there; other orders, the same customer's too; outbox rows stored
already, sent and unsent; orders placed moments to days ago, numbered past 2^31 too, their receipts queued; the
outbox's insert, the order's update or the commit failing; a call inside the caller's own transaction that is then
rolled back, or that wrote first and commits after catching any failure; the customer clicking "cancel"
twice); then with the
kitchen starting the order, or the customer's second click, between its statements or holding the row
uncommitted; and killed between any two of its statements.

What is free, and not compared: how the decision is made (one UPDATE with the condition, or a row locked
first), how the transaction is opened, and the new outbox row's id, event_id and created_at.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import psycopg

from course.core import outbox
from course.programs import tiffin

from course.grading import differential as diff
from course.grading import interleave
from course.grading.checks import exercise_check
from course.grading.snapshot import At, Reader
from course.grading.trial import Attempt, Trial, short
from course.grading.checks.lab05.cancel_world import (
    FIRST, NO_FAULTS, STATUSES, Cancel, _fault, families, install)

DEFAULT_SEED = 5
SCENARIOS = 30  # five of each family
SLACK_S = 2.0  # times written by two runs a moment apart (committed runs, a loaded machine)
CANCELLED = "lab05_orders.cancelled"  # the notebook's CANCELLED: the subject a cancellation is announced on
FREE_OUTBOX_COLUMNS = ("id", "event_id", "created_at")

# -- one run -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Odd:
    shown: str

    def __str__(self) -> str:
        return self.shown


def truth(value: Any) -> bool | Odd:
    """The contract: True if it cancelled the order, False if not (1 and 0 read as those)."""
    if isinstance(value, (bool, int)) and value in (0, 1):
        return bool(value)
    return Odd(short(value))


CANCEL = """UPDATE orders SET status = 'cancelled' WHERE id = %(order_id)s AND status = 'placed' RETURNING id"""


def reference_cancel(conn: psycopg.Connection, order_id: int) -> bool:
    """The solution's cancel_order."""
    with conn.transaction():
        cancelled = conn.execute(CANCEL, {"order_id": order_id}).fetchone()
        if cancelled:
            outbox.add(conn, CANCELLED, {"order_id": order_id})
    return cancelled is not None


def reference(cancel: Cancel) -> Callable[[psycopg.Connection], Attempt]:
    def run(conn):
        try:
            return Attempt(value=reference_cancel(conn, cancel.order_id))
        except Exception as error:  # noqa: BLE001 (the injected failures)
            return Attempt(error=f"{type(error).__name__}: {error}", error_type=type(error).__name__)
    return run


@dataclass(frozen=True)
class Seen:
    returned: Any
    raised: str | None
    state: dict
    elsewhere: bool = False  # some of its writes came from a session other than the connection it was given
    customers: tuple = ()  # the customers' rows it changed: (id, column)
    callers: str = "open"  # the caller's transaction when yours returned: "open", "ended" (by a COMMIT or ROLLBACK
    # of yours), "aborted" (a statement of yours failed outside a savepoint of its own)


# Who wrote: the server process of every row change to the orders and the outbox, as the server sees it (an
# answer that opens a connection of its own writes from another process, whatever it does with the one given).
WRITERS = """
CREATE TABLE IF NOT EXISTS rules_writers (pid int NOT NULL);
CREATE OR REPLACE FUNCTION rules_note_writer() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO rules_writers VALUES (pg_backend_pid()); RETURN NULL; END $$;
DROP TRIGGER IF EXISTS rules_note_writer ON orders;
CREATE TRIGGER rules_note_writer AFTER INSERT OR UPDATE OR DELETE ON orders
  FOR EACH STATEMENT EXECUTE FUNCTION rules_note_writer();
DROP TRIGGER IF EXISTS rules_note_writer ON outbox;
CREATE TRIGGER rules_note_writer AFTER INSERT OR UPDATE OR DELETE ON outbox
  FOR EACH STATEMENT EXECUTE FUNCTION rules_note_writer();
"""
NO_WRITERS = ("DROP TRIGGER IF EXISTS rules_note_writer ON orders; DROP TRIGGER IF EXISTS rules_note_writer ON outbox; "
              "DROP TABLE IF EXISTS rules_writers")


CALLERS_ORDER = ("INSERT INTO orders (id, customer_id, status, items, total_cents) "
                 "VALUES (%(id)s, 1, 'placed', '[{\"name\": \"dosa\", \"quantity\": 2, \"price_cents\": 450}]', 900)")


CUSTOMER_COLUMNS = ("name", "email", "address", "updated_at")


class Runner:
    """Runs a cancel_order on a scenario: the rows written and committed, the call, what it left."""

    def __init__(self, t: Trial, box, answer: Callable):
        self.t, self.box, self.answer = t, box, answer
        self.watch = box.connect()
        self.reader = Reader.of(box.conn, only=("orders", "outbox", "jobs"))
        self.watch.execute(WRITERS)

    def learner(self, cancel: Cancel) -> Callable[[psycopg.Connection], Attempt]:
        return lambda conn: self.t.attempt(self.answer, conn, cancel.order_id)

    def reset(self, cancel: Cancel) -> None:
        self.watch.execute(NO_FAULTS)
        diff.clear(self.watch, self.reader)
        self.watch.execute(install(cancel))
        if cancel.fault:
            self.watch.execute(_fault(cancel))
        self.watch.execute("DELETE FROM rules_writers")

    def run(self, cancel: Cancel, answer: Callable[[psycopg.Connection], Attempt]) -> Seen:
        self.reset(cancel)
        customers = self._customers()
        conn = self.box.conn
        given = conn.info.backend_pid
        callers = "open"
        try:
            if cancel.caller == "rolls back":
                with conn.transaction():
                    done = answer(conn)
                    raise psycopg.Rollback
            elif cancel.caller == "commits":  # BEGIN, a write of the caller's, the call, any failure caught, COMMIT
                conn.execute("BEGIN")
                conn.execute(CALLERS_ORDER, {"id": cancel.callers_order})
                done = answer(conn)
                status = conn.info.transaction_status if not conn.closed else None
                callers = {psycopg.pq.TransactionStatus.INTRANS: "open",
                           psycopg.pq.TransactionStatus.INERROR: "aborted"}.get(status, "ended")
                if callers == "open":
                    conn.execute("COMMIT")
            else:
                done = answer(conn)
                if cancel.again and not done.error:
                    done = answer(conn)
        finally:
            if not conn.closed and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()
            if not conn.closed and not conn.autocommit:  # an answer that turned it off: the caller's again
                conn.autocommit = True
            self.watch.execute(NO_FAULTS)
        elsewhere = self.watch.execute("SELECT EXISTS (SELECT FROM rules_writers WHERE pid <> %s)", [given]).fetchone()[0]
        after = self._customers()
        changed = tuple(sorted((key, column) for key in set(customers) | set(after) for n, column in enumerate(
            CUSTOMER_COLUMNS) if (customers.get(key) or (None,) * 4)[n] != (after.get(key) or (None,) * 4)[n]))
        for key, row in customers.items() if changed else ():  # put back: the next run finds them as they were
            self.watch.execute("UPDATE customers SET (name, email, address, updated_at) = (%s, %s, %s, %s) "
                               "WHERE id = %s", [*row, key])
        return Seen(None if done.error else truth(done.value), done.error, self.reader.read(self.watch), elsewhere,
                    changed, callers)

    def _customers(self) -> dict:
        """The customers as stored (kept between scenarios: the orders refer to them)."""
        return {row[0]: row[1:] for row in self.watch.execute(
            "SELECT id, name, email, address, updated_at FROM customers").fetchall()}

    def close(self) -> None:
        self.watch.execute(NO_WRITERS)
        self.watch.execute(NO_FAULTS)
        diff.clear(self.watch, self.reader)
        self.watch.close()


# -- the checks, by rule (labs.toml names each) -------------------------------------------------------------------

CANCELS = "cancels an order still placed: its status becomes 'cancelled'"
NOT_CANCELLABLE = "leaves an order that is not placed (started, further along, cancelled already, or not there) as it was"
EVENT = "adds one outbox row when it cancels: subject 'lab05_orders.cancelled', unsent"
EVENT_PAYLOAD = "the row's payload is {\"order_id\": <the id>}: ids, not data"
NO_EVENT = "adds no outbox row when it does not cancel"
UNTOUCHED = "changes nothing else: the other orders, the outbox's earlier rows, no jobs"
OUTBOX_REFUSED = "when the outbox row cannot be stored, the order stays placed (one transaction)"
RAISES = "and the failure reaches the caller (the customer is not told 'cancelled')"
UPDATE_REFUSED = "when the order cannot be changed, no outbox row is left"
COMMIT_REFUSED = "if the transaction does not commit, the order stays placed and no row is left"
GIVEN_CONN = "uses the connection it is given (the caller's rollback takes the change and its row away)"
RETURNS = "returns True when it cancelled the order, False when it did not"
KITCHEN = "the kitchen starting the order while yours runs: an order is never both started and cancelled"
TWICE = "two cancels of the same order at once: one cancels it, and there is one outbox row"
KILLED = "a process killed between any two of its statements leaves the order placed and no row, or both done"

CHECKS = (CANCELS, NOT_CANCELLABLE, EVENT, EVENT_PAYLOAD, NO_EVENT, UNTOUCHED, OUTBOX_REFUSED, RAISES,
          UPDATE_REFUSED, COMMIT_REFUSED, GIVEN_CONN, RETURNS, KITCHEN, TWICE, KILLED)


# Its writes came from the given connection (a session of its own is told apart first) and outlived the caller's
# rollback: a COMMIT (or ROLLBACK, then writes) of its own ended the caller's transaction.
ENDED_THE_CALLERS = ("the caller rolled its transaction back, and your change stayed: your own COMMIT or ROLLBACK "
                     "ended the caller's transaction. Open yours with conn.transaction(), which nests as a savepoint "
                     "inside the caller's")


def _new_rows(state: dict, cancel: Cancel) -> list[dict]:
    return [row for key, row in sorted(state.get("outbox", {}).items()) if key[0] > cancel.announced]


def _status(state: dict, order_id: int) -> str:
    row = state.get("orders", {}).get((order_id,))
    return row["status"] if row else "(no such order)"


def judge(cancel: Cancel, ours: Seen, theirs: Seen, slack_s: float = SLACK_S) -> diff.Finding | None:
    """The first rule the learner's outcome breaks, beside the reference's on the same scenario."""
    raised = f"yours raised {ours.raised}" if ours.raised else None
    if ours.elsewhere and not theirs.elsewhere:
        return diff.Finding(GIVEN_CONN, got="orders or outbox written from another session",
                            expected="every write on the connection you are given", note=(
                                "a connection of your own commits on its own: the caller's transaction, and what "
                                "the caller decides about it, never reach your writes. Use conn"))
    if cancel.caller != "autocommit":
        found = _inside_the_callers(cancel, ours, theirs)
        if found is not None:
            return found
        if ours.callers == "aborted" and theirs.raised:  # a failing statement aborts the caller's transaction, the
            # caller's own order with it: PostgreSQL's rule, not the answer's doing (free)
            ours = replace(ours, state=_without(ours.state, cancel.callers_order))
            theirs = replace(theirs, state=_without(theirs.state, cancel.callers_order))
    mine, wanted = _status(ours.state, cancel.order_id), _status(theirs.state, cancel.order_id)
    if mine != wanted:
        if wanted == "cancelled":
            return diff.Finding(CANCELS, got=f"order {cancel.order_id} {mine}", expected="cancelled", note=raised or (
                "an order still placed is the customer's to cancel, however long ago it was placed: UPDATE orders SET status = 'cancelled' "
                "WHERE id = ... AND status = 'placed'"))
        check = {"outbox refused": OUTBOX_REFUSED, "commit refused": COMMIT_REFUSED}.get(cancel.fault)
        if check is None and cancel.caller == "rolls back" and mine == "cancelled":
            check = GIVEN_CONN
        return diff.Finding(check or NOT_CANCELLABLE, got=f"order {cancel.order_id} {mine}", expected=wanted, note=(
            "the cancellation committed without its outbox row: the kitchen is never told. Both writes in one "
            "transaction (with conn.transaction(): ...)" if check in (OUTBOX_REFUSED, COMMIT_REFUSED) else
            ENDED_THE_CALLERS if check else
            f"only an order whose status is 'placed' may be cancelled; this one was {wanted}"))
    rows, wanted_rows = _new_rows(ours.state, cancel), _new_rows(theirs.state, cancel)
    if len(rows) != len(wanted_rows):
        if wanted_rows:
            return diff.Finding(EVENT, got=f"{len(rows)} new outbox rows", expected="1", note=raised or (
                "the kitchen hears of a cancellation from the relay, which publishes outbox rows: "
                f"outbox.add(conn, CANCELLED, {{\"order_id\": {cancel.order_id}}}) in the same transaction"
                if not rows else "one cancellation, one row"))
        check = {"update refused": UPDATE_REFUSED, "commit refused": COMMIT_REFUSED,
                 "outbox refused": OUTBOX_REFUSED}.get(cancel.fault)
        if check is None and cancel.caller == "rolls back":
            check = GIVEN_CONN
        return diff.Finding(check or NO_EVENT, got=f"{len(rows)} new outbox row(s)", expected="none", note=(
            "the outbox row committed on its own while the order was not cancelled: the kitchen would throw away "
            "food for an order that still stands. Both writes in one transaction" if check in
            (UPDATE_REFUSED, COMMIT_REFUSED, OUTBOX_REFUSED) else
            ENDED_THE_CALLERS if check else
            f"order {cancel.order_id} was {wanted}, so nothing was cancelled: announce only what you changed"))
    for row, want in zip(rows, wanted_rows):
        if row["subject"] != want["subject"] or row["sent_at"] is not None:
            column = "subject" if row["subject"] != want["subject"] else "sent_at"
            return diff.Finding(EVENT, got=f"the row's {column}: {short(row[column])}", expected=short(want[column]),
                                note="the relay publishes unsent rows to their subject: the kitchen listens on "
                                     "CANCELLED, and a row written as sent is never published")
        if row["payload"] != want["payload"]:
            return diff.Finding(EVENT_PAYLOAD, got=short(row["payload"]), expected=short(want["payload"]), note=(
                "ids, not data: the kitchen reads the order fresh when it hears of it"))
    found = _untouched(cancel, ours, theirs, slack_s)
    if found:
        return found
    if ours.customers and not theirs.customers:
        customer, column = ours.customers[0]
        return diff.Finding(UNTOUCHED, got=f"customer {customer}'s {column} changed", expected="unchanged",
                            note="a cancellation changes the order and adds its outbox row, and nothing else")
    if theirs.raised and not ours.raised:
        return diff.Finding(RAISES, got=f"returned {ours.returned}", expected="an exception",
                            note="a failure swallowed tells the customer the order is cancelled when it is not")
    if ours.raised and not theirs.raised:
        return diff.Finding(RETURNS, got=ours.raised, expected=f"returned {theirs.returned}", note=(
            "an order that cannot be cancelled is an answer, not an error: return False" if theirs.returned is False
            else "the reference cancelled this order, and yours raised"))
    if not ours.raised and ours.returned != theirs.returned:
        return diff.Finding(RETURNS, got=str(ours.returned), expected=str(theirs.returned), note=(
            "return True only when this call cancelled the order" if isinstance(ours.returned, bool) else
            "return True or False"))
    return None


INSIDE = ("the connection may already be inside the caller's transaction, and the cancel must work there too: "
          "`with conn.transaction():` nests as a savepoint. Inside it psycopg and PostgreSQL refuse a switch of "
          "autocommit, conn.commit(), and SET TRANSACTION ISOLATION LEVEL")


def _inside_the_callers(cancel: Cancel, ours: Seen, theirs: Seen) -> diff.Finding | None:
    """Called inside the caller's transaction: it must neither fail where the reference does not, nor end the
    caller's transaction (its earlier writes are the caller's to commit or roll back)."""
    if ours.raised and not theirs.raised:
        return diff.Finding(GIVEN_CONN, got=f"yours raised {ours.raised}", expected=f"returned {theirs.returned}",
                            note=INSIDE)
    if ours.callers == "ended":
        lost = cancel.callers_order in {key[0] for key in theirs.state.get("orders", {})} and (
            (cancel.callers_order,) not in ours.state.get("orders", {}))
        return diff.Finding(GIVEN_CONN, got="the caller's transaction had ended when yours returned" + (
            f", and the caller's order {cancel.callers_order}, written before it called yours, is gone" if lost
            else ""), expected="the caller's transaction still open, to commit or roll back as it decides",
            note=("your own ROLLBACK ended the caller's transaction, its earlier writes with it" if lost else
                  "your own COMMIT or ROLLBACK ended the caller's transaction") +
            ". Open yours with conn.transaction(), which nests as a savepoint inside the caller's; on a failure it "
            "rolls back to that savepoint and re-raises")
    return None


def _without(state: dict, order_id: int) -> dict:
    return {**state, "orders": {k: v for k, v in state.get("orders", {}).items() if k != (order_id,)}}


def _same(a, b, slack_s: float) -> bool:
    if isinstance(a, At) and isinstance(b, At):
        return abs(a.seconds - b.seconds) <= slack_s
    return a == b


def _untouched(cancel: Cancel, ours: Seen, theirs: Seen, slack_s: float) -> diff.Finding | None:
    for table in ("orders", "outbox", "jobs"):
        mine, kept = ours.state.get(table, {}), theirs.state.get(table, {})
        for key in sorted(set(mine) | set(kept)):
            if table == "outbox" and key[0] > cancel.announced:
                continue
            if table == "orders" and key == (cancel.order_id,):  # its status is judged above; the rest stays
                if key in mine and key in kept:
                    column = next((c for c in kept[key] if c != "status" and not _same(mine[key].get(c), kept[key][c],
                                                                                      slack_s)), None)
                    if column:
                        return diff.Finding(UNTOUCHED, got=f"order {key[0]}'s {column}: {short(mine[key][column])}",
                                            expected=short(kept[key][column]),
                                            note="a cancellation changes the order's status, and nothing else of it")
                continue
            if key not in kept:
                return diff.Finding(UNTOUCHED, got=f"{table[:-1] if table != 'outbox' else 'outbox row'} {key[0]} "
                                    "added", expected="nothing else", note="a cancellation changes the order and "
                                    "adds its outbox row, and nothing else")
            if key not in mine:
                return diff.Finding(UNTOUCHED, got=f"{table[:-1] if table != 'outbox' else 'outbox row'} {key[0]} gone",
                                    expected="still there", note="a cancellation deletes nothing")
            column = next((c for c in kept[key] if not _same(mine[key].get(c), kept[key][c], slack_s)), None)
            if column:
                return diff.Finding(UNTOUCHED, got=f"{'order' if table == 'orders' else 'outbox row'} {key[0]}'s "
                                    f"{column}: {short(mine[key][column])}", expected=short(kept[key][column]),
                                    note="cancel the one order you are given (WHERE id = ...), nothing else" if
                                    table == "orders" else "the outbox's earlier rows are the relay's")
    return None


# -- the kitchen and the second click between its statements, and a kill between any two ---------------------

RACE = Cancel(("placed", "preparing", "placed"), 2, 1)  # told when it fails too: the plainest race
RACE_SLACK_S = float("inf")  # the stored rows' times are not what a race changes; a hold may last seconds
PATIENCE_S = 10.0  # how long the kitchen's screen holds the row while yours waits for it, before it crashes: an
# answer that gives up on the lock sooner (lock_timeout) ends the hold at once; longer than any lock_timeout a
# learner plausibly sets (round f4 found 5 s pass a hold of 2 s). Only a correct answer waits it out, once.


def race_scene(seed: int) -> Cancel:
    """The race's own scenario, drawn like the others: more orders than a small test has (13 to 17: an answer
    safe only while the table holds a dozen orders, or fewer, is raced where it is not), numbered far from the
    demo's (an answer safe only on the demo's orders is raced on others)."""
    rng = random.Random(seed)
    others = [rng.choice(STATUSES) for _ in range(rng.randint(12, 16))]
    target = rng.randint(0, len(others))
    orders = tuple(others[:target] + ["placed"] + others[target:])
    return Cancel(orders, target, rng.randint(0, len(orders)), first=rng.randint(10_000, 2_000_000_000))


@dataclass(frozen=True)
class RolledBack(interleave.Hold):
    """take(conn) ran in a transaction that stays open (its row locks held) until released, and is then
    rolled back: the kitchen's screen started the order and crashed before its commit. Patient: when released,
    it still holds the row while the answer goes on waiting for it, up to patience_s (an answer that gives up
    on a lock after a while, lock_timeout, gives up before the order is free again)."""
    told: str
    take: Callable[[psycopg.Connection], Any]
    patience_s: float = 0.0

    def start(self, arena: interleave.Arena) -> interleave.Holding:
        holder = arena.session("holder")
        holder.conn.execute("BEGIN")
        seen = interleave.observed(lambda: self.take(holder.conn))
        if self.patience_s:  # the arena stops an answer blocked for its statement_timeout: let it outwait the hold
            arena.conn.execute(f"SET statement_timeout = '{int((self.patience_s + 8) * 1000)}ms'")

        def seen_then_reset() -> Any:
            if self.patience_s:  # the answer has ended (Arena.under reads what the hold saw after it)
                arena.conn.execute(f"SET statement_timeout = '{interleave.STATEMENT_TIMEOUT}'")
            return seen

        def release() -> None:
            # Fixed, not a HangBound: stretched on a loaded machine past the arena's own limit on a lock wait,
            # the hold made the reference's waiting UPDATE give up (CI9: the solution failed this check)
            deadline = time.monotonic() + self.patience_s
            while time.monotonic() < deadline and interleave.blocked(arena.watch, arena.conn.info.backend_pid,
                                                                     [holder.pid]):
                time.sleep(0.02)
            holder.conn.execute("ROLLBACK")
        return interleave.Holding(release, seen_then_reset)


DEADLOCK = ("two calls on the same order at once ended in an error for one of them: each held a lock the other "
            "needed (a shared lock, FOR SHARE, taken by both and then each waiting to update). Take the row FOR "
            "UPDATE, or decide in the UPDATE itself")

# Findings a race only exposes, whose cause is not the race: an answer that announces what it did not change,
# or raises where it should say False, does so whoever made the order not cancellable.
OWN_CAUSE = (NO_EVENT, EVENT_PAYLOAD, RETURNS, RAISES, UNTOUCHED)


def _from_outcome(got: diff.Outcome) -> Seen:
    return Seen(got.returned, got.raised, got.state)


def race(t: Trial, runner: Runner, scene: Cancel) -> tuple[diff.Finding, str] | None:
    """The kitchen starts the order, or the customer's second click runs another cancel, just before each of
    the answer's statements after its first; and the kitchen holds the order's row, started and uncommitted,
    while the answer runs. The outcome must be one the reference reaches with the other session before it or
    after it (under the hold: the reference's under it)."""
    arena = interleave.Arena(runner.box.conn, runner.box.connect, runner.reader, install, truth)
    learner, theirs = runner.learner(scene), reference(scene)

    def kitchen(conn):
        return tiffin.start_preparing(conn, scene.order_id)

    def yours(conn):
        done = learner(conn)
        return interleave.Raised(done.error) if done.error else truth(done.value)

    def reference_again(conn):
        done = theirs(conn)
        return interleave.Raised(done.error) if done.error else truth(done.value)

    stove = interleave.Act(f"the kitchen started order {scene.order_id} (tiffin.start_preparing) and committed", kitchen)
    held = interleave.InTransaction(f"the kitchen has started order {scene.order_id} and not yet committed "
                                    "(its transaction holds the row); it commits once yours waits or ends", kitchen)
    dropped = RolledBack(f"the kitchen started order {scene.order_id} and its transaction, holding the row, rolled "
                         "back (its screen crashed) once yours waited or ended: the order is still placed", kitchen)
    patient = replace(dropped, told=f"the kitchen started order {scene.order_id} and its transaction, holding the "
                      f"row, rolled back (its screen crashed) once yours ended or had waited {PATIENCE_S:.0f} s: the "
                      "order is still placed", patience_s=PATIENCE_S)
    groups = [
        (KITCHEN, [], [(patient, dropped)], (
            "the kitchen held the order's row and then rolled its change back: the order was still placed, so it "
            "is the customer's to cancel. Wait for the row's lock (the UPDATE itself waits, as does FOR UPDATE) "
            "instead of passing over the row (SKIP LOCKED), failing at once (NOWAIT) or after a while (lock_timeout)")),
        (KITCHEN, [(stove, stove)], [(held, held)], (
            "the kitchen changed the order between your read of its status and your write, and yours went on with "
            "what it had read. Decide and change in one statement (UPDATE ... WHERE id = ... AND status = 'placed' "
            "RETURNING id), or lock the row first (SELECT ... FOR UPDATE) inside the transaction")),
        (TWICE, [(interleave.Act("the customer's second click ran your cancel_order in another session", yours),
                  interleave.Act("the second click ran the reference", reference_again))], [], (
            "both calls read the order as placed before either changed it, and both cancelled it: two outbox rows, "
            "the kitchen told twice. Decide and change in one statement, or lock the row first (SELECT ... FOR UPDATE)")),
    ]

    def judged(check: str, note: str):
        def verdict(scenario, ours: diff.Outcome, allowed: list[diff.Outcome]) -> diff.Finding | None:
            def beside(other: diff.Outcome) -> diff.Finding | None:
                return judge(scenario, _from_outcome(ours), _from_outcome(other), slack_s=RACE_SLACK_S)

            found = diff.against(ours, allowed, beside)
            if found is None:
                return None
            failed = next((seen for seen in ours.others if isinstance(seen, interleave.Raised)), None)
            if failed is not None and any(beside(other) is None for other in allowed):
                return diff.Finding(check, got=f"the other session's call {failed}",
                                    expected=" or ".join(str(other.others[0]) for other in allowed), note=DEADLOCK)
            if not found.check:  # the same rows, but the other session saw something the reference never shows it
                return diff.Finding(check, got=f"the other session saw {found.got}", expected=found.expected, note=note)
            if found.check in OWN_CAUSE:  # a rule it breaks whoever acts beside it: that is the cause to name
                return replace(found, check=check, note=f"the other session acted on the order first: {found.note}"
                               if found.note else None)
            return replace(found, check=check, note=note)
        return verdict

    try:
        for check, acts, holds, note in groups:
            found = interleave.explore(arena, scene, answer=learner, reference=theirs, acts=acts, holds=holds,
                                       judge=judged(check, note))
            if found is not None:
                return found[0], str(found[1])
    finally:
        arena.close()
    return None


def killed(t: Trial, runner: Runner, scene: Cancel) -> tuple[diff.Finding, str] | None:
    """The answer killed just before each of its statements after the first: the order placed and no new row,
    or the order cancelled and one row."""
    learner = runner.learner(scene)
    steps = _killed_at(runner, scene, learner, 0)[0]
    for point in range(2, len(steps) + 1):
        said, state = _killed_at(runner, scene, learner, point)
        status, rows = _status(state, scene.order_id), len(_new_rows(state, scene))
        if (status, rows) not in (("placed", 0), ("cancelled", 1)):
            left = (f"order {scene.order_id} {status} and {rows} new outbox row{'s' if rows != 1 else ''}")
            note = ("cancelled, and the kitchen never told: it cooks and sends food nobody will pay for"
                    if status == "cancelled" else "the kitchen told of a cancellation that never happened")
            return diff.Finding(KILLED, got=left, expected="placed and no row, or cancelled and one row", note=(
                f"{note}: the write before the kill had committed on its own. Both in one transaction")), \
                (f"{scene.told()}; the process killed just before your statement {point} ({said[point - 1]}), "
                 f"after your statement {point - 1} ({said[point - 2]})")
    return None


def _killed_at(runner: Runner, scene: Cancel, learner: Callable, point: int) -> tuple[list[str], dict]:
    runner.reset(scene)
    conn = runner.box.connect()
    kill = interleave.KillPoint(runner.watch, conn, point)
    try:
        with kill.watching():
            learner(conn)
    except interleave.Killed:
        pass
    finally:
        conn.close()
    return kill.steps, runner.reader.read(runner.watch)


# -- the check ---------------------------------------------------------------------------------------------------------


@exercise_check("05.cancel_order")
def cancel_order_check(t: Trial, cancel_order, seed=None):
    t.seed = DEFAULT_SEED if seed is None else seed
    box = t.scratch()
    tiffin.install(box.conn)
    outbox.install(box.conn)
    runner = Runner(t, box, cancel_order)
    verdicts = diff.Verdicts(t, CHECKS)

    def compare(cancel: Cancel) -> diff.Finding | None:
        return judge(cancel, runner.run(cancel, runner.learner(cancel)), runner.run(cancel, reference(cancel)))

    try:
        diff.search(verdicts, diff.in_turn(families()), compare, seed=t.seed, count=SCENARIOS, first=FIRST)
        scene = race_scene(t.seed)
        alone = compare(scene)
        if alone is not None:  # an answer wrong on the race's orders before anyone races it
            verdicts.add(alone, scene.told())
        elif compare(RACE) is None:  # the stages below build on an answer right on its own
            for stage in (race, killed):
                found = stage(t, runner, scene)
                if found is not None:  # told on the plainest race when that fails too
                    found = stage(t, runner, RACE) or found
                    verdicts.add(*found)
    finally:
        runner.close()
    verdicts.report()
